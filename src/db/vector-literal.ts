// pgvector's text form of a vector: how every statement passes an embedding to PostgreSQL.

/**
 * pgvector's text form, '[0.1,0.2,...]'. pgvector stores single-precision floats, and 9 significant digits name a
 * float32 exactly, so each number is written as the float32 nearest it (Math.fround) in 9 digits: PostgreSQL reads
 * the vector it read from JavaScript's shortest double form (they can differ only for a double within rounding
 * distance of the midpoint between two float32s, where this one is the correctly rounded), from ~35 % fewer characters
 * made in ~a third of the time (a new 512-number query vector: ~0.06 ms against ~0.19, ~7,000 characters against
 * ~10,600; a need's statements send it four or five times). test/integration/vector-literal.test.ts compares both.
 */
export function toVectorLiteral(vector: readonly number[]): string {
  let literal = '[';
  for (let i = 0; i < vector.length; i++) literal += (i === 0 ? '' : ',') + Math.fround(vector[i]).toPrecision(9);
  return `${literal}]`;
}
