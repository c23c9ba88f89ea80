// Membership refusals in words that say what to do instead.
export const memberErrors = {
  conflict: 'The workspace owner’s role never changes, and nobody else can be made owner.',
  forbidden: 'Only a workspace admin or owner can change members.',
  invalid_body: 'Enter the user id the identity provider gives that person, and pick a role.',
};
