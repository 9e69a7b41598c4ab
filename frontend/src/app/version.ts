/** Spec §9: product version 4.2.9 (code 329); settings/get answers the same from the server. */
export const APP_VERSION = '4.2.9';
