import type { UIMessage } from 'ai';
import { memo } from 'react';
import { Markdown } from './markdown';
import { ReasoningBlock } from './reasoning-block';
import { ToolPart } from './tool-part';

export const MessageView = memo(function MessageView({ message, streaming }: { message: UIMessage; streaming: boolean }) {
  if (message.role === 'user') {
    const text = message.parts.map((p) => (p.type === 'text' ? p.text : '')).join('');
    return (
      <div className="flex justify-end" data-role="user" data-message-id={message.id}>
        <div className="max-w-[85%] rounded-2xl rounded-br-sm bg-accent px-3.5 py-2 text-sm break-words whitespace-pre-wrap text-white">{text}</div>
      </div>
    );
  }
  return (
    <div className="min-w-0" data-role="assistant" data-message-id={message.id}>
      {message.parts.map((part, i) => {
        switch (part.type) {
          case 'text':
            return <Markdown key={i} text={part.text} streaming={streaming && part.state === 'streaming'} />;
          case 'reasoning':
            return <ReasoningBlock key={i} text={part.text} streaming={part.state === 'streaming'} />;
          case 'dynamic-tool':
            return <ToolPart key={part.toolCallId} part={part} />;
          default:
            return null;
        }
      })}
    </div>
  );
});
