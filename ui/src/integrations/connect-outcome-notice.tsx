import { useEffect, useState } from 'react';
import { Button } from '../components/button';
import { cn } from '../components/cn';
import { clearConnectOutcomeFromAddress, currentConnectOutcome, dismissConnectOutcome } from './connect-outcome';

/** Says how an OAuth connect ended when the server sent the browser back here: the connect and
 *  its callback are full-page navigations, so this is where their answer is read. */
export function ConnectOutcomeNotice() {
  const [outcome, setOutcome] = useState(currentConnectOutcome);
  useEffect(() => clearConnectOutcomeFromAddress(), []);
  if (!outcome) return null;
  return (
    <div
      role={outcome.ok ? 'status' : 'alert'}
      data-testid="connect-outcome"
      data-ok={outcome.ok}
      className={cn(
        'flex items-center gap-3 border-b px-4 py-1.5 text-sm',
        outcome.ok ? 'border-emerald-200 bg-emerald-50 text-emerald-900' : 'border-red-200 bg-red-50 text-red-800',
      )}
    >
      <p className="flex-1">{outcome.sentence}</p>
      <Button
        variant="ghost"
        onClick={() => {
          dismissConnectOutcome();
          setOutcome(null);
        }}
      >
        Dismiss
      </Button>
    </div>
  );
}
