// Managing credentials is an admin's or owner's job (the app's creator may only look): a 403
// says so in those words rather than as a generic refusal.
export const integrationErrors = {
  forbidden: 'Only an admin or owner can manage integrations.',
};
