import { describe, expect, test } from "vitest";
import { StreamSlots } from "../../src/viewer/stream-slots.js";
import { HttpError } from "../../src/viewer/errors.js";

function refusalOf(take: () => unknown): { status: number; code: string; message: string } | null {
  try {
    take();
    return null;
  } catch (error) {
    if (error instanceof HttpError) return { status: error.status, code: error.code, message: error.message };
    throw error;
  }
}

describe("StreamSlots", () => {
  test("a client gets at most its share, everyone together at most the total, and a released slot is free again", () => {
    const slots = new StreamSlots({ perClient: 2, total: 3 });
    const a1 = slots.take("a");
    slots.take("a");
    expect(refusalOf(() => slots.take("a"))).toEqual({
      status: 503,
      code: "busy",
      message: "this client already follows 2 jobs (at most 2 at once); close a job page or try again shortly",
    });
    slots.take("b");
    expect(refusalOf(() => slots.take("c"))).toEqual({
      status: 503,
      code: "busy",
      message: "the viewer already streams 3 jobs (at most 3 at once); close a job page or try again shortly",
    });
    expect(slots.open).toBe(3);
    a1();
    a1(); // releasing twice frees one slot, not two
    expect(slots.open).toBe(2);
    expect(refusalOf(() => slots.take("c"))).toBeNull();
    expect(refusalOf(() => slots.take("c"))).not.toBeNull();
    expect(refusalOf(() => slots.take("a"))).not.toBeNull();
  });
});

describe("StreamSlots accounting", () => {
  test("a client that closes one of its streams has exactly one slot back, not more", () => {
    const slots = new StreamSlots({ perClient: 2, total: 10 });
    const first = slots.take("a");
    slots.take("a");
    first();
    expect(refusalOf(() => slots.take("a"))).toBeNull();
    expect(refusalOf(() => slots.take("a"))?.message).toBe("this client already follows 2 jobs (at most 2 at once); close a job page or try again shortly");
    expect(slots.open).toBe(2);
  });

  test("a client that closed all its streams starts again from none", () => {
    const slots = new StreamSlots({ perClient: 2, total: 10 });
    const releases = [slots.take("a"), slots.take("a")];
    for (const release of releases) release();
    expect(slots.open).toBe(0);
    expect(refusalOf(() => slots.take("a"))).toBeNull();
    expect(refusalOf(() => slots.take("a"))).toBeNull();
    expect(refusalOf(() => slots.take("a"))).not.toBeNull();
  });

  test("by default a client may hold 16 streams and all clients together 64", () => {
    const slots = new StreamSlots();
    for (let i = 0; i < 16; i++) slots.take("a");
    expect(refusalOf(() => slots.take("a"))?.message).toBe("this client already follows 16 jobs (at most 16 at once); close a job page or try again shortly");
    for (const client of ["b", "c", "d"]) for (let i = 0; i < 16; i++) slots.take(client);
    expect(refusalOf(() => slots.take("e"))?.message).toBe("the viewer already streams 64 jobs (at most 64 at once); close a job page or try again shortly");
  });
});
