// Turns Ajv errors from request validation into one message that names the field and the problem.
import type { ErrorObject } from 'ajv';

export function describeValidationErrors(errors: ErrorObject[] | null | undefined): string {
  if (!errors || errors.length === 0) return 'the request is invalid';
  const byPath = new Map<string, ErrorObject[]>();
  for (const e of errors) {
    const list = byPath.get(e.instancePath) ?? [];
    list.push(e);
    byPath.set(e.instancePath, list);
  }
  const messages: string[] = [];
  for (const [instancePath, list] of byPath) {
    const where = fieldName(instancePath);
    const oneOfTypes = list.filter((e) => e.keyword === 'type' && e.schemaPath.includes('/oneOf/'));
    if (oneOfTypes.length > 1) {
      messages.push(`${where} must be ${oneOfTypes.map((e) => articleFor(String((e.params as { type: string }).type))).join(' or ')}`);
      continue;
    }
    for (const e of list) {
      if (e.keyword === 'oneOf' || e.keyword === 'allOf') continue;
      messages.push(describeOne(where, e));
    }
  }
  return [...new Set(messages)].join('; ');
}

function describeOne(where: string, e: ErrorObject): string {
  const params = e.params as Record<string, unknown>;
  switch (e.keyword) {
    case 'additionalProperties':
      return `${where} has an unknown field '${String(params.additionalProperty)}'`;
    case 'required':
      return `${where === 'request' ? 'the request' : where} is missing the required field '${String(params.missingProperty)}'`;
    case 'type':
      return `${where} must be ${articleFor(String(params.type))}`;
    case 'enum':
      return `${where} must be one of ${(params.allowedValues as unknown[]).map((v) => `'${String(v)}'`).join(', ')}`;
    default:
      return `${where} ${e.message ?? 'is invalid'}`;
  }
}

function fieldName(instancePath: string): string {
  const parts = instancePath.split('/').filter(Boolean);
  if (parts[0] === 'requestBody') parts.shift();
  if (parts[0] === 'query' && instancePath.startsWith('/query/')) parts[0] = 'query parameter';
  if (parts.length === 0) return instancePath.startsWith('/requestBody') ? 'the request body' : 'request';
  if (parts[0] === 'query parameter') return `query parameter '${parts.slice(1).join('.')}'`;
  return parts.join('.');
}

function articleFor(type: string): string {
  if (type === 'array') return 'an array of strings';
  if (type === 'object') return 'an object';
  if (type === 'integer') return 'an integer';
  return `a ${type}`;
}
