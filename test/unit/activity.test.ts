import { describe, expect, it } from "vitest";
import { createActivity } from "../../src/platform/activity.ts";

describe("activity", () => {
  it("counts the server as in use for a while after each request, and idle before any", () => {
    let t = 1_000;
    const activity = createActivity(() => t);
    expect(activity.busy()).toBe(false);
    activity.note();
    t += 1_500;
    expect(activity.busy()).toBe(true);
    t += 600;
    expect(activity.busy()).toBe(false);
    expect(activity.busy(5_000)).toBe(true);
    activity.note();
    expect(activity.busy()).toBe(true);
  });
});
