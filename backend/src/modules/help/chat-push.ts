import { Injectable } from '@nestjs/common';
import type { Server } from 'socket.io';
import { userRoom } from '../realtime/topics';

/** Every room of a chat push starts with this (a conversation's, the operators'). */
export const CHAT_ROOM_PREFIX = 'chat:';
export const conversationRoom = (id: string | number) => `${CHAT_ROOM_PREFIX}${id}`;
/** Every operator's socket that asked for chat notices (chat:ops). */
export const OPERATORS_ROOM = `${CHAT_ROOM_PREFIX}operators`;
/** An operator's own room: how the revocation sweep finds that operator's sockets (not a push target). */
export const operatorRoom = (adminId: number) => `admin:${adminId}`;

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

  /** Every socket of the user (the private room each signed-in socket joins on connecting). */
  toUser(userId: number, event: string, data: unknown): void {
    this.server?.to(userRoom(userId)).emit(event, data);
  }

  toOperators(event: string, data: unknown): void {
    this.server?.to(OPERATORS_ROOM).emit(event, data);
  }
}
