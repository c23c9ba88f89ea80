import type { ReactNode } from 'react';
import { navigate } from '../routing/location';

/** A link to the Model providers screen that stays in the page (no reload). */
export function ModelProvidersLink({ children = 'Open Model providers' }: { children?: ReactNode }) {
  return (
    <a
      href="/onboarding/provider"
      onClick={(e) => {
        e.preventDefault();
        navigate('/onboarding/provider');
      }}
      className="font-medium underline"
      data-testid="model-providers-link"
    >
      {children}
    </a>
  );
}
