// A tool call's result: the value checked against the tool's declared output schema, client mistakes with their
// message, anything else as "internal error (request id ...)", logged with that id (the SDK would otherwise
// echo a thrown error's message: SQL, file paths, stack details).
import { randomUUID } from 'node:crypto';

import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { z } from 'zod';

/** The subset of a pino logger the server needs (pino's own signature). */
export interface ToolErrorLogger {
  error(details: Record<string, unknown>, message: string): void;
}

/**
 * Runs a tool's work: its value checked against the declared output schema; an error `isClientError` accepts
 * comes back with its message, any other as an internal error naming only a logged request id.
 */
export async function runTool(
  tool: string,
  outputSchema: z.ZodType,
  logger: ToolErrorLogger,
  isClientError: (err: unknown) => boolean,
  work: () => Promise<object>,
): Promise<CallToolResult> {
  try {
    const value = await work();
    const checked = outputSchema.safeParse(value);
    if (!checked.success) {
      // Our own output broke the contract: report it as internal rather than let the SDK echo the issues.
      throw new Error(`${tool} output does not match its declared schema: ${checked.error.message}`);
    }
    return {
      content: [{ type: 'text', text: JSON.stringify(value) }],
      structuredContent: value as Record<string, unknown>,
    };
  } catch (err) {
    if (isClientError(err)) return toolError((err as Error).message);
    const requestId = randomUUID();
    logger.error({ err, tool, requestId }, 'mcp tool failed');
    return toolError(`internal error (request id ${requestId})`);
  }
}

function toolError(message: string): CallToolResult {
  return { content: [{ type: 'text', text: message }], isError: true };
}
