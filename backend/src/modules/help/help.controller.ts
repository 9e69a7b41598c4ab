import { Body, Controller, Get, Param, Post, Query } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import { AdminAuth, Auth, AuthContext, UserAuth } from '../../infra/auth/guards';
import { Reply } from '../../infra/http/envelope';
import { BigIdPipe } from '../../infra/http/id-pipes';
import { ChatService } from './chat.service';
import { ChatHistoryDto, ChatReadDto, ChatSendDto, ConversationListDto, CustomerUrlDto, FeedbackDto, FeedbackListDto, HelpPageDto, OperatorReplyDto } from './help.dto';
import { HelpService } from './help.service';

@ApiTags('help')
@Controller()
export class HelpController {
  constructor(
    private readonly help: HelpService,
    private readonly chat: ChatService,
  ) {}

  /** The online-service address: the in-app chat route, or an operator-configured external URL. */
  @Get('get/customer_url')
  customerUrl() {
    return this.help.customerUrl();
  }

  @Post('help/feedback')
  @UserAuth()
  async feedback(@Auth() auth: AuthContext, @Body() dto: FeedbackDto) {
    return new Reply(await this.help.submitFeedback(auth.subjectId, dto), 'msg.feedback_sent');
  }

  @Get('help/feedback')
  @UserAuth()
  myFeedback(@Auth() auth: AuthContext, @Query() q: HelpPageDto) {
    return this.help.myFeedback(auth.subjectId, q.page, q.limit);
  }

  /** The user's conversation with its messages (after `after`) and unread count. */
  @Get('help/chat')
  @UserAuth()
  conversation(@Auth() auth: AuthContext, @Query() q: ChatHistoryDto) {
    return this.chat.mine(auth.subjectId, q.after ?? 0);
  }

  @Post('help/chat/send')
  @UserAuth()
  send(@Auth() auth: AuthContext, @Body() dto: ChatSendDto) {
    return this.chat.userSend(auth.subjectId, dto.text, dto.image, dto.client_id);
  }

  @Post('help/chat/read')
  @UserAuth()
  read(@Auth() auth: AuthContext, @Body() dto: ChatReadDto) {
    return this.chat.userRead(auth.subjectId, dto.message_id);
  }
}

/** Operators: conversations (list, read, reply, close), feedback (list, reply), the online-service URL. */
@ApiTags('admin')
@Controller('admin/help')
@AdminAuth()
export class HelpAdminController {
  constructor(
    private readonly help: HelpService,
    private readonly chat: ChatService,
  ) {}

  @Get('conversations')
  conversations(@Query() q: ConversationListDto) {
    return this.chat.list(q.status, q.page, q.limit, q.before);
  }

  @Get('conversations/:id')
  async conversation(@Param('id', BigIdPipe) id: string, @Query() q: ChatHistoryDto) {
    const c = await this.chat.read(id, q.after ?? 0);
    // Read up to the last message this answer shows (a page of a long catch-up is not all of it), or up to
    // `after` when the operator has everything to there already (pushed live).
    const upTo = Math.max(Number(c.messages.at(-1)?.id ?? 0), q.after ?? 0);
    if (upTo > 0) await this.chat.markRead(id, 'operator', upTo);
    return c;
  }

  @Post('conversations/:id/reply')
  reply(@Auth() auth: AuthContext, @Param('id', BigIdPipe) id: string, @Body() dto: OperatorReplyDto) {
    return this.chat.reply(auth.subjectId, id, dto.text, dto.client_id);
  }

  @Post('conversations/:id/close')
  close(@Auth() auth: AuthContext, @Param('id', BigIdPipe) id: string) {
    return this.chat.close(auth.subjectId, id);
  }

  @Get('feedback')
  feedback(@Query() q: FeedbackListDto) {
    return this.help.feedbackList(q.status, q.page, q.limit);
  }

  @Post('feedback/:id/reply')
  replyFeedback(@Auth() auth: AuthContext, @Param('id', BigIdPipe) id: string, @Body() dto: OperatorReplyDto) {
    return this.help.reply(auth.subjectId, id, dto.text);
  }

  @Post('customer_url')
  customerUrl(@Auth() auth: AuthContext, @Body() dto: CustomerUrlDto) {
    return this.help.setCustomerUrl(auth.subjectId, dto.url, dto.reason);
  }
}
