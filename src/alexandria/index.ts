export * from './catalog-entry';
export * from './errors';
export * from './library-service';
export * from './mapping';
export * from './record';
export * from './sponsorship';
