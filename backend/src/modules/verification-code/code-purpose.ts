/** What a verification code may be used for. Purposes marked `own` go to the logged-in user's contact. */
export const CODE_PURPOSES = ['register', 'forget', 'fund_password', 'address'] as const;
export type CodePurpose = (typeof CODE_PURPOSES)[number];
export const OWN_CONTACT_PURPOSES: readonly CodePurpose[] = ['fund_password', 'address'];
