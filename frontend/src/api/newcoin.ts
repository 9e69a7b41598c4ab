import { get, post } from './client';
import type { Page } from './trading';

/** New-coin subscriptions (`lh/newcoin/*`): docs/api.md "New-coin subscriptions (IEO)". */
export type IeoState = 'upcoming' | 'active' | 'ended' | 'distributed';

/** Published at allocation: totals only. */
export interface IeoResult {
  requested: string;
  supply: string;
  allocated: string;
  ratio: string;
  remainder: string;
  unallocated: string;
  payments: string;
  refunded: string;
  allocated_at: string | null;
  distributed_at: string | null;
}

export interface IeoProject {
  id: number;
  symbol: string;
  name: string;
  coin_id: number;
  decimals: number;
  currency_id: number;
  currency: string;
  price: string;
  supply: string;
  start_at: string;
  end_at: string;
  min_qty: string;
  max_qty: string;
  website: string;
  white_paper: string;
  intro: string;
  state: IeoState;
  seconds_to_start: number;
  seconds_to_end: number;
  result: IeoResult | null;
  market_id: number | null;
  market: string | null;
}

export interface IeoSubscription {
  id: string;
  project_id: number;
  symbol: string;
  currency: string;
  price: string;
  quantity: string;
  payment: string;
  status: 'pending' | 'subscribed' | 'allocated' | 'distributed';
  allocation: string | null;
  paid: string | null;
  refund: string | null;
  created_at: string;
  settled_at: string | null;
}

export interface IeoMine {
  subscriptions: number;
  requested: string;
  payment: string;
  allocation: string | null;
  paid: string | null;
  refund: string | null;
  distributed: boolean;
}

export interface IeoOrderInfo extends Page<IeoSubscription> {
  project: IeoProject | null;
  mine: IeoMine | null;
}

export const newcoinApi = {
  list: () => get<IeoProject[]>('lh/newcoin/config'),
  project: (id: number) => get<IeoProject>('lh/newcoin/config', { id }),
  info: (projectId?: number) => get<IeoOrderInfo>('lh/newcoin/order/info', projectId ? { project_id: projectId, limit: 50 } : { limit: 50 }),
  submit: (body: { project_id: number; quantity: string; client_id: string }) => post<IeoSubscription>('lh/newcoin/order/submit', body),
};
