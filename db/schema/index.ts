export * from './users';
export * from './projects';
export * from './apiKeys';
export * from './platform';
export * from './billing';
export * from './webhooks';
export * from './servers';
