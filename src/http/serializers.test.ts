import { SerializerSelector } from '@fastify/fast-json-stringify-compiler';
import { Type } from 'typebox';
import { describe, expect, it } from 'vitest';
import { LocationSchema } from '../locations/locations.schemas.ts';
import { literalUnion } from '../lib/literals.ts';
import { forSerializing } from './serializers.ts';

describe('schemas as the serializer compiles them', () => {
  it('turn a union of primitive types or constants into one type list, and keep everything else', () => {
    const schema = Type.Object({
      alt: Type.Union([Type.Number(), Type.Null()], { description: 'metres' }),
      status: Type.Union([literalUnion(['pending', 'failed']), Type.Null()]),
      scope: literalUnion(['public', 'private']),
      place: Type.Union([Type.Object({ lat: Type.Number() }), Type.Null()]),
    });
    expect(JSON.parse(JSON.stringify(forSerializing(schema)))).toEqual({
      type: 'object',
      required: ['alt', 'status', 'scope', 'place'],
      properties: {
        alt: { description: 'metres', type: ['number', 'null'] },
        status: { type: ['string', 'null'] },
        scope: { type: 'string' },
        place: {
          anyOf: [{ type: 'object', required: ['lat'], properties: { lat: { type: 'number' } } }, { type: 'null' }],
        },
      },
    });
  });

  it('write a page of points exactly as the unions did', () => {
    const point = (i: number) => ({
      id: `loc_${i}`,
      username: 'ada',
      scope: i % 2 ? 'public' : 'private',
      time: 1_700_000_000 + i / 3,
      lat: 52.5 + i * 1e-5,
      lon: -0.125 - i * 1e-5,
      alt: i % 3 ? 31.5 : null,
      accuracy: i % 4 ? 5 : null,
      speed: i % 5 ? 1.25 : null,
      heading: i % 6 ? 359.75 : null,
      source: i % 7 ? null : 'owntracks',
      created_at: 1_700_000_100 + i,
      extra: 'never written',
    });
    const page = Array.from({ length: 50 }, (_, i) => point(i));
    const list = Type.Array(LocationSchema);
    const compile = (schema: unknown) =>
      SerializerSelector()({})({ method: 'GET', url: '/', httpStatus: '200', schema });
    const before = compile(JSON.parse(JSON.stringify(list)))(page);
    const after = compile(forSerializing(list))(page);
    expect(after).toBe(before);
    expect(after).not.toContain('never written');
  });
});
