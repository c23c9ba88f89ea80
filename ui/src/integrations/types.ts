/** GET .../integrations: metadata only, never a secret's value. */
export interface IntegrationsView {
  integrations: Array<{
    name?: string;
    domain: string;
    keySlug: string;
    secrets: Array<{ name: string; label?: string; configured: boolean; required?: boolean }>;
  }>;
  oauth: Array<{ providerKey: string; configured: boolean; connected?: boolean; requiredScopes?: string[]; grantedScopes?: string[] }>;
}
