const SESSION_ONLY_ADMIN = 'Session only; owner or admin.';

export const LIST_API_KEYS = `${SESSION_ONLY_ADMIN} Revoked keys are omitted.`;

export const CREATE_API_KEY = `${SESSION_ONLY_ADMIN} The response carries the full key once. A key reaches only this project, holds the listed scopes and acts with its creator's current role.`;

export const REVOKE_API_KEY = `${SESSION_ONLY_ADMIN} Takes effect immediately.`;
