// pgvector's text form of a vector: how every statement passes an embedding to PostgreSQL.

/** pgvector's text form, '[0.1,0.2,...]'. */
export function toVectorLiteral(vector: number[]): string {
  return `[${vector.join(',')}]`;
}
