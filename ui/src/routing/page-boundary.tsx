import { Component, type ReactNode } from 'react';
import { Button } from '../components/button';

interface Props {
  /** The address shown: going to another page shows that page, not this one's failure (a
   *  lazy page that failed stays failed until a reload). */
  resetKey: string;
  children: ReactNode;
}

/**
 * Pages come in chunks fetched when first shown (routing/pages.ts), so a page can fail to load
 * long after the first screen did: the server went away, or a newer build replaced the files
 * this tab started with. Without a boundary React would leave the whole page empty; this says
 * so in words and offers a reload, which fetches the new build's files.
 */
export class PageBoundary extends Component<Props, { error: unknown }> {
  override state: { error: unknown } = { error: null };

  static getDerivedStateFromError(error: unknown) {
    return { error };
  }

  override componentDidUpdate(prev: Props) {
    if (prev.resetKey !== this.props.resetKey && this.state.error !== null) this.setState({ error: null });
  }

  override render() {
    if (this.state.error === null) return this.props.children;
    return (
      <div role="alert" className="m-6 rounded-md border border-red-200 bg-red-50 px-3 py-2 text-sm text-red-800" data-testid="page-failed">
        <p className="font-medium">This page could not be loaded.</p>
        <p className="mt-0.5 text-red-700">The server may be unreachable, or a newer version of the builder was installed.</p>
        <Button className="mt-2" onClick={() => location.reload()}>
          Reload
        </Button>
      </div>
    );
  }
}
