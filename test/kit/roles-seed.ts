import { fileURLToPath } from 'node:url';

/** A seed with a user of every role (test/fixtures/roles-seed.json), for `emulator({ seed: ROLES_SEED })`. */
export const ROLES_SEED = fileURLToPath(new URL('../fixtures/roles-seed.json', import.meta.url));

/** The user tokens of ROLES_SEED: org_acme's OWNER (of org_other too), MEMBER and VIEWER; org_other's other OWNER; the first OWNER's token limited to each org. */
export const TOKENS = {
  owner: 'tok_owner_all',
  member: 'tok_member_all',
  viewer: 'tok_viewer_all',
  outsider: 'tok_outsider_all',
  ownerLimitedToAcme: 'tok_owner_acme',
  ownerLimitedToOther: 'tok_owner_other',
} as const;
