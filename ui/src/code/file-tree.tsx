import { useMemo, useState } from 'react';
import { cn } from '../components/cn';
import { Icon } from '../components/icon';
import { buildTree, type TreeNode } from './build-tree';

interface Row {
  node: TreeNode;
  depth: number;
  open: boolean;
}

/** The version's files as a folder tree. A folder starts open at the top level (of a workspace
 *  of a hundred files or fewer) and on the way to the open file; the reader's own opening and
 *  closing wins from then on. */
export function FileTree({ files, selected, onOpen }: { files: ReadonlyArray<{ path: string; bytes: number }>; selected: string | null; onOpen: (path: string) => void }) {
  const tree = useMemo(() => buildTree(files), [files]);
  const [toggled, setToggled] = useState<Record<string, boolean>>({});
  // A large workspace starts folded, to the open file only: its top level is a screenful already.
  const openTop = files.length <= 100;
  const isOpen = (path: string, depth: number) => toggled[path] ?? ((openTop && depth === 0) || (selected?.startsWith(`${path}/`) ?? false));

  const rows: Row[] = [];
  const walk = (nodes: TreeNode[], depth: number) => {
    for (const node of nodes) {
      const open = node.kind === 'folder' && isOpen(node.path, depth);
      rows.push({ node, depth, open });
      if (node.kind === 'folder' && open) walk(node.children, depth + 1);
    }
  };
  walk(tree, 0);

  return (
    <ul role="tree" aria-label="Files" className="py-1 text-[13px]" data-testid="file-tree">
      {rows.map(({ node, depth, open }) => (
        <li
          key={node.path}
          role="treeitem"
          aria-level={depth + 1}
          aria-expanded={node.kind === 'folder' ? open : undefined}
          aria-selected={node.kind === 'file' ? node.path === selected : undefined}
          data-path={node.path}
          data-kind={node.kind}
        >
          <button
            type="button"
            onClick={() => (node.kind === 'folder' ? setToggled((t) => ({ ...t, [node.path]: !open })) : onOpen(node.path))}
            className={cn(
              'flex w-full min-w-0 items-center gap-1.5 rounded-md py-1 pr-2 text-left',
              node.kind === 'file' && node.path === selected ? 'bg-accent-soft font-medium text-indigo-900' : 'text-zinc-700 hover:bg-zinc-100',
            )}
            style={{ paddingLeft: `${0.5 + depth * 0.875}rem` }}
            title={node.path}
          >
            {node.kind === 'folder' ? (
              <>
                <Icon name="chevron" className={cn('size-3.5 shrink-0 text-zinc-400 transition-transform', open && 'rotate-90')} />
                <Icon name="folder" className="size-4 shrink-0 text-zinc-400" />
              </>
            ) : (
              <>
                <span className="size-3.5 shrink-0" aria-hidden />
                <Icon name="file" className={cn('size-4 shrink-0', node.path === selected ? 'text-accent' : 'text-zinc-400')} />
              </>
            )}
            <span className="min-w-0 truncate">{node.name}</span>
          </button>
        </li>
      ))}
    </ul>
  );
}
