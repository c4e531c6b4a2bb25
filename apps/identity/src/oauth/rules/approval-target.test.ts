import { describe, expect, it } from 'vitest';
import { approvalTarget } from './approval-target.js';

describe('approvalTarget', () => {
  it.each([
    ['https://evil.example/cb?x=1', { kind: 'host', value: 'evil.example' }],
    ['https://user.app.example:8443/oauth', { kind: 'host', value: 'user.app.example' }],
    ['http://127.0.0.1:4711/callback', { kind: 'device', value: '127.0.0.1' }],
    ['http://[::1]:53100/cb', { kind: 'device', value: '[::1]' }],
    ['com.example.app:/oauth/cb', { kind: 'scheme', value: 'com.example.app' }],
  ])('names %s by where the code lands', (uri, target) => {
    expect(approvalTarget(uri)).toEqual(target);
  });
});
