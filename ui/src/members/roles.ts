import type { Role } from '../api/types';

// The role rules of spec "Authentication" the page needs to decide what to offer; the server
// checks them again on every request.
export const isAdmin = (role: Role | undefined) => role === 'owner' || role === 'admin';
export const canEdit = (role: Role | undefined) => role !== undefined && role !== 'viewer';
