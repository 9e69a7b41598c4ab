import { OnGatewayInit, WebSocketGateway } from '@nestjs/websockets';
import type { Server } from 'socket.io';
import { NoticePushService } from './notice-push.service';

/** The notices' side of the push channel (the same /socket.io server; RealtimeGateway joins users to their rooms). */
@WebSocketGateway({ path: '/socket.io', cors: { origin: true }, perMessageDeflate: false })
export class NoticeGateway implements OnGatewayInit {
  constructor(private readonly push: NoticePushService) {}

  afterInit(server: Server): void {
    this.push.attach(server);
  }
}
