export * from './alexandria-mcp-server';
export * from './http-transport';
export * from './stdio';
export * from './registry-tools';
