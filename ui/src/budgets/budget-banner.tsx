import type { BudgetShare } from '../api/types';

/** What a monthly budget at 80 % or spent means for the next runs, and who can change it
 *  (`raise`: where an admin does, said to admins). */
export function BudgetBanner({ what, share, canEdit, raise }: { what: 'app' | 'workspace'; share: BudgetShare; canEdit: boolean; raise: string }) {
  if (!share.warning && !share.exhausted) return null;
  const whose = what === 'app' ? "This app's" : "The workspace's";
  const who = canEdit ? raise : 'A workspace admin can raise it.';
  return share.exhausted ? (
    <p className="rounded-md bg-red-50 px-3 py-2 text-sm text-red-700" role="alert" data-testid={`budget-banner-${what}`}>
      {whose} monthly budget of {share.limitText} is spent: new builder turns and agent runs are refused until next month. {who}
    </p>
  ) : (
    <p className="rounded-md bg-amber-50 px-3 py-2 text-sm text-amber-800" role="status" data-testid={`budget-banner-${what}`}>
      {whose} monthly budget is {Math.floor((share.usedFraction ?? 0) * 100)} % spent ({share.limitText}). Runs stop when it is reached. {who}
    </p>
  );
}
