import { Column, Entity, PrimaryGeneratedColumn } from 'typeorm';
import { CREATED_AT } from '../../infra/database/columns';

/** Operators: a separate table and token type from users, so neither can open the other's API. */
@Entity('admins')
export class Admin {
  @PrimaryGeneratedColumn()
  id: number;

  @Column({ type: 'varchar', length: 200, unique: true })
  email: string;

  @Column({ name: 'password_hash', type: 'varchar', length: 200 })
  passwordHash: string;

  @Column(CREATED_AT)
  createdAt: Date;
}
