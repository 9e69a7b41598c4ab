import type { MessageKey } from '../../infra/i18n/catalogue';

/**
 * Every kind of user message, in one place: the catalogue key of its text (the kind itself) →
 * the catalogue key of its title (the group shown above it). A message is left by the service
 * that makes the decision, inside the decision's own transaction (UserMessageService.leave), so
 * it exists exactly when the decision does and once per decision.
 */
export const NOTICE_KINDS = {
  'notice.deposit_approved': 'notice.title_funds',
  'notice.deposit_rejected': 'notice.title_funds',
  'notice.withdrawal_approved': 'notice.title_funds',
  'notice.withdrawal_rejected': 'notice.title_funds',
  'notice.kyc_approved': 'notice.title_verification',
  'notice.kyc_rejected': 'notice.title_verification',
  'notice.loan_approved': 'notice.title_loan',
  'notice.loan_rejected': 'notice.title_loan',
  'notice.loan_overdue': 'notice.title_loan',
  'notice.loan_repayment_approved': 'notice.title_loan',
  'notice.loan_repayment_rejected': 'notice.title_loan',
  'notice.option_settled': 'notice.title_trade',
  'notice.option_void': 'notice.title_trade',
  'notice.lever_liquidated': 'notice.title_trade',
  'notice.ieo_allocated': 'notice.title_ieo',
  'notice.rebate_paid': 'notice.title_rebate',
  'notice.feedback_replied': 'notice.title_service',
} as const satisfies Partial<Record<MessageKey, MessageKey>>;

export type NoticeKind = keyof typeof NOTICE_KINDS;

export function isNoticeKind(key: string): key is NoticeKind {
  return Object.prototype.hasOwnProperty.call(NOTICE_KINDS, key);
}
