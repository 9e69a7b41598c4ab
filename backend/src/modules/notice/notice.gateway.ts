import { OnGatewayInit, WebSocketGateway } from '@nestjs/websockets';
import type { Server } from 'socket.io';
import { NoticePushService } from './notice-push.service';
import { PUSH_SERVER } from '../realtime/push-server';

/** The notices' side of the push channel (the same /socket.io server; RealtimeGateway joins users to their rooms). */
@WebSocketGateway(PUSH_SERVER)
export class NoticeGateway implements OnGatewayInit {
  constructor(private readonly push: NoticePushService) {}

  afterInit(server: Server): void {
    this.push.attach(server);
  }
}
