import type { DynamicToolUIPart } from 'ai';
import { useChatActions } from '../chat/chat-actions';
import { AgentsCard } from './cards/agents-card';
import { AppToolCard } from './cards/app-tool-card';
import { DoneBuildingCard } from './cards/done-building-card';
import { FileChangeCard } from './cards/file-change-card';
import { InlineCard } from './cards/inline-card';
import { OnelineCard } from './cards/oneline-card';
import { PackagesCard } from './cards/packages-card';
import { PlanCard } from './cards/plan-card';
import { SetupCard } from './cards/setup-card';
import { TerminalCard } from './cards/terminal-card';
import { WebCard } from './cards/web-card';
import { classifyBash } from './classify-bash';
import { inputField, shortPath } from './tool-state';

/** The spec's rendering table, one row per case. */
export function ToolPart({ part }: { part: DynamicToolUIPart }) {
  const { workspaceId, appId } = useChatActions();
  const name = part.toolName;
  switch (name) {
    case 'mcp__platform__present_plan':
      return <PlanCard part={part} />;
    case 'mcp__platform__present_agents':
      return <AgentsCard part={part} />;
    case 'mcp__platform__present_integration_setup':
      return <SetupCard part={part} />;
    case 'mcp__platform__done_building':
      return <DoneBuildingCard part={part} />;
    case 'mcp__platform__add_packages':
      return <PackagesCard part={part} />;
    case 'Bash': {
      const read = classifyBash(inputField(part.input, 'command', 'cmd') ?? '');
      return read ? <OnelineCard part={part} kind={read.kind} target={read.target} /> : <TerminalCard part={part} />;
    }
    case 'Write':
    case 'Edit':
    case 'MultiEdit':
      return <FileChangeCard part={part} />;
    case 'Read':
    case 'List':
    case 'LS':
    case 'Glob':
    case 'Grep':
      return <OnelineCard part={part} kind={name === 'LS' ? 'List' : name} target={shortPath(inputField(part.input, 'file_path', 'filePath', 'path', 'pattern', 'query')) || '.'} />;
    case 'WebSearch':
    case 'WebFetch':
      return <WebCard part={part} />;
    default:
      if (name.startsWith('mcp__app_tools__')) return <AppToolCard part={part} workspaceId={workspaceId} appId={appId} />;
      return <InlineCard part={part} />;
  }
}
