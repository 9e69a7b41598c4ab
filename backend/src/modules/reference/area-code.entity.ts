import { Column, Entity, PrimaryGeneratedColumn } from 'typeorm';

@Entity('area_codes')
export class AreaCode {
  @PrimaryGeneratedColumn()
  id: number;

  @Column({ type: 'char', length: 2, unique: true })
  iso: string;

  /** Digits without "+", e.g. "86". */
  @Column({ name: 'dial_code', type: 'varchar', length: 8 })
  dialCode: string;

  @Column({ type: 'varchar', length: 64 })
  name: string;

  @Column({ type: 'int', default: 0 })
  sort: number;
}
