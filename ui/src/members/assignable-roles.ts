import type { Role } from '../api/types';

/** The roles POST .../members grants: `owner` is never given, so a workspace keeps its owner. */
export const assignableRoles: ReadonlyArray<Exclude<Role, 'owner'>> = ['viewer', 'collaborator', 'admin'];
