// Membership refusals in words that say what to do instead.
export const memberErrors = {
  conflict: 'The workspace owner’s role never changes, the owner cannot be removed, and nobody else can be made owner.',
  not_found: 'That person is no longer a member of this workspace.',
  forbidden: 'Only a workspace admin or owner can change members.',
  invalid_body: 'Enter the user id the identity provider gives that person, and pick a role.',
};
