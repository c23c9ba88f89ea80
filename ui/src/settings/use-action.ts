import { useCallback, useState } from 'react';

/** One request a control sends: whether it is under way and how it last failed (shown with
 *  ErrorNotice). `run` answers whether the request succeeded. */
export function useAction() {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const run = useCallback(async (work: () => Promise<unknown>): Promise<boolean> => {
    setBusy(true);
    setError(null);
    try {
      await work();
      return true;
    } catch (e) {
      setError(e);
      return false;
    } finally {
      setBusy(false);
    }
  }, []);
  return { run, busy, error };
}
