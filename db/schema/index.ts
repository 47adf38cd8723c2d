export * from './accounts';
export * from './projects';
export * from './apiKeys';
export * from './platform';
export * from './billing';
export * from './processedPaymentEvents';
export * from './servers';
