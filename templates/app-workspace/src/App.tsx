import { Button } from './components/Button.tsx';
import { Card } from './components/Card.tsx';

// The starting point of every app: the builder replaces this screen with the app it builds.
export default function App() {
  return (
    <main className="min-h-screen bg-slate-50 p-8 text-slate-900">
      <div className="mx-auto max-w-2xl space-y-6">
        <h1 className="text-3xl font-semibold">New app</h1>
        <Card title="Getting started">
          <p className="text-slate-600">Describe the app you want and the builder will create it here.</p>
          <Button className="mt-4" onClick={() => window.scrollTo({ top: 0 })}>
            Ready
          </Button>
        </Card>
      </div>
    </main>
  );
}
