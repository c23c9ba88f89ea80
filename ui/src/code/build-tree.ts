// The version's file list (paths sorted, as the route gives them) as the rows of a folder tree.
export interface TreeFile {
  kind: 'file';
  name: string;
  path: string;
  bytes: number;
}

export interface TreeFolder {
  kind: 'folder';
  name: string;
  path: string;
  children: TreeNode[];
}

export type TreeNode = TreeFile | TreeFolder;

/** Folders before files at each level, each group by name, as file managers and editors list them. */
export function buildTree(files: ReadonlyArray<{ path: string; bytes: number }>): TreeNode[] {
  const root: TreeFolder = { kind: 'folder', name: '', path: '', children: [] };
  for (const f of files) {
    const parts = f.path.split('/').filter(Boolean);
    let folder = root;
    parts.slice(0, -1).forEach((name, i) => {
      const path = parts.slice(0, i + 1).join('/');
      let next = folder.children.find((c): c is TreeFolder => c.kind === 'folder' && c.name === name);
      if (!next) {
        next = { kind: 'folder', name, path, children: [] };
        folder.children.push(next);
      }
      folder = next;
    });
    folder.children.push({ kind: 'file', name: parts.at(-1) ?? f.path, path: f.path, bytes: f.bytes });
  }
  const order = (nodes: TreeNode[]) => {
    nodes.sort((a, b) => (a.kind === b.kind ? a.name.localeCompare(b.name) : a.kind === 'folder' ? -1 : 1));
    for (const n of nodes) if (n.kind === 'folder') order(n.children);
  };
  order(root.children);
  return root.children;
}

/** The file the Files view opens when the address names none: the app's main screen when it has one. */
export function defaultFile(files: ReadonlyArray<{ path: string }>): string | null {
  for (const wanted of ['src/App.tsx', 'src/App.jsx', 'src/App.ts', 'src/main.tsx', 'index.html', 'README.md']) {
    if (files.some((f) => f.path === wanted)) return wanted;
  }
  return files[0]?.path ?? null;
}
