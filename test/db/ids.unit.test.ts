import { describe, expect, it } from 'vitest';
import { isId, newId } from '../../src/db/ids.ts';

describe('ids', () => {
  it('makes distinct version-7 UUIDs in the order they were made, past its buffer of random words', () => {
    const ids = Array.from({ length: 3000 }, () => newId());
    for (const id of ids) expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(new Set(ids).size).toBe(ids.length);
    expect([...ids].sort()).toEqual(ids);
    expect(ids.every(isId)).toBe(true);
  });
});
