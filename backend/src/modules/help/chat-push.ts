import { Injectable } from '@nestjs/common';
import type { Server } from 'socket.io';

export const conversationRoom = (id: string | number) => `chat:${id}`;
/** Every operator's socket that asked for chat notices (chat:ops). */
export const OPERATORS_ROOM = 'chat:operators';

/** The Socket.IO server, for the chat's pushes (set by ChatGateway when the gateway starts). */
@Injectable()
export class ChatPush {
  private server?: Server;

  attach(server: Server): void {
    this.server = server;
  }

  toConversation(id: string, event: string, data: unknown): void {
    this.server?.to(conversationRoom(id)).emit(event, data);
  }

  toOperators(event: string, data: unknown): void {
    this.server?.to(OPERATORS_ROOM).emit(event, data);
  }
}
