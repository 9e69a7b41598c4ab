import { Column, Entity, Index, PrimaryGeneratedColumn } from 'typeorm';
import { CREATED_AT } from '../../infra/database/columns';

/** A user's feedback (category, text, optional image) and the operator's reply. */
@Entity('help_feedback')
@Index('ix_help_feedback_user', ['userId', 'id'])
@Index('ix_help_feedback_status', ['status', 'id'])
@Index('uq_help_feedback_client', ['userId', 'clientId'], { unique: true, where: 'client_id IS NOT NULL' })
export class HelpFeedback {
  @PrimaryGeneratedColumn({ type: 'bigint' })
  id: string;

  @Column({ name: 'user_id', type: 'int' })
  userId: number;

  @Column({ type: 'varchar', length: 16 })
  category: string;

  @Column({ type: 'varchar', length: 1000 })
  content: string;

  @Column({ type: 'varchar', length: 36, nullable: true })
  image: string | null;

  /** open | replied */
  @Column({ type: 'varchar', length: 8, default: 'open' })
  status: string;

  @Column({ type: 'varchar', length: 1000, nullable: true })
  reply: string | null;

  @Column({ name: 'replied_by', type: 'int', nullable: true })
  repliedBy: number | null;

  @Column({ name: 'replied_at', type: 'timestamptz', nullable: true })
  repliedAt: Date | null;

  /** The app's id for the request: a retry with it answers this row (one per user). */
  @Column({ name: 'client_id', type: 'varchar', length: 64, nullable: true })
  clientId: string | null;

  @Column(CREATED_AT)
  createdAt: Date;
}

/** A live-chat conversation of one user with the operators; at most one open per user. */
@Entity('chat_conversations')
@Index('uq_chat_conversations_open', ['userId'], { unique: true, where: `status = 'open'` })
@Index('ix_chat_conversations_status', ['status', 'lastMessageId'])
export class ChatConversation {
  @PrimaryGeneratedColumn({ type: 'bigint' })
  id: string;

  @Column({ name: 'user_id', type: 'int' })
  userId: number;

  /** open | closed */
  @Column({ type: 'varchar', length: 8, default: 'open' })
  status: string;

  @Column({ name: 'last_message_id', type: 'bigint', default: 0 })
  lastMessageId: string;

  /** Read receipts: the last message id each side has read. */
  @Column({ name: 'user_read_id', type: 'bigint', default: 0 })
  userReadId: string;

  @Column({ name: 'operator_read_id', type: 'bigint', default: 0 })
  operatorReadId: string;

  @Column({ name: 'closed_by', type: 'int', nullable: true })
  closedBy: number | null;

  @Column({ name: 'closed_at', type: 'timestamptz', nullable: true })
  closedAt: Date | null;

  @Column(CREATED_AT)
  createdAt: Date;
}

@Entity('chat_messages')
@Index('ix_chat_messages_conversation', ['conversationId', 'id'])
@Index('uq_chat_messages_client', ['senderId', 'clientId'], { unique: true, where: "sender = 'user' AND client_id IS NOT NULL" })
@Index('uq_chat_messages_operator_client', ['senderId', 'clientId'], { unique: true, where: "sender = 'operator' AND client_id IS NOT NULL" })
export class ChatMessage {
  @PrimaryGeneratedColumn({ type: 'bigint' })
  id: string;

  @Column({ name: 'conversation_id', type: 'bigint' })
  conversationId: string;

  /** user | operator */
  @Column({ type: 'varchar', length: 8 })
  sender: string;

  @Column({ name: 'sender_id', type: 'int' })
  senderId: number;

  @Column({ type: 'varchar', length: 1000, default: '' })
  text: string;

  @Column({ type: 'varchar', length: 36, nullable: true })
  image: string | null;

  /** A user's message: the app's id for the request, so a retry answers this row (one per user). */
  @Column({ name: 'client_id', type: 'varchar', length: 64, nullable: true })
  clientId: string | null;

  @Column(CREATED_AT)
  createdAt: Date;
}
