// The Lua scripts of the OAuth store: each runs on one grant's or one
// mailbox's keys, which share a hash tag, so it stays in one slot on a Cluster.

// One script, one slot: compares the presented refresh digest with the
// grant's current one and either rotates it or, for a used one, revokes the
// grant. The used digests are a list capped at USED_REFRESH_KEPT, newest
// first, so a grant refreshed all day costs a bounded key; a set written by
// an earlier version becomes that list once.
// The token rotated last stays answerable for ARGV[6] ms (Redis' clock, the
// same for every identity process): hosts that refresh in parallel race
// with one token, and the losers get the winner's successor instead of
// revoking the grant. Only the last rotation has a grace, so the successor
// handed out is always the current token.
export const ROTATE_REFRESH = `
local status = redis.call('HGET', KEYS[1], 'status')
if not status then return {'unknown'} end
if status ~= 'active' then return {'revoked'} end
if redis.call('TYPE', KEYS[2]).ok == 'set' then
  local old = redis.call('SMEMBERS', KEYS[2])
  redis.call('DEL', KEYS[2])
  if #old > 0 then
    redis.call('RPUSH', KEYS[2], unpack(old, 1, math.min(#old, tonumber(ARGV[4]))))
    redis.call('EXPIRE', KEYS[2], ARGV[3])
  end
end
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
if redis.call('HGET', KEYS[1], 'refresh') == ARGV[1] then
  redis.call('HSET', KEYS[1], 'refresh', ARGV[2])
  if tonumber(ARGV[6]) > 0 then
    redis.call('HSET', KEYS[1], 'grace_digest', ARGV[1], 'grace_sealed', ARGV[5], 'grace_until', string.format('%d', now + tonumber(ARGV[6])))
  else
    redis.call('HDEL', KEYS[1], 'grace_digest', 'grace_sealed', 'grace_until')
  end
  redis.call('LPUSH', KEYS[2], ARGV[1])
  redis.call('LTRIM', KEYS[2], 0, tonumber(ARGV[4]) - 1)
  redis.call('EXPIRE', KEYS[1], ARGV[3])
  redis.call('EXPIRE', KEYS[2], ARGV[3])
  return {'rotated'}
end
if redis.call('HGET', KEYS[1], 'grace_digest') == ARGV[1] and now < tonumber(redis.call('HGET', KEYS[1], 'grace_until') or '0') then
  return {'grace', redis.call('HGET', KEYS[1], 'grace_sealed')}
end
if redis.call('LPOS', KEYS[2], ARGV[1]) then
  redis.call('HSET', KEYS[1], 'status', 'revoked')
  return {'reused'}
end
return {'unknown'}
`;

// Whether a digest is the grant's current refresh token or one of its used ones.
export const HOLDS_REFRESH = `
if redis.call('HGET', KEYS[1], 'refresh') == ARGV[1] then return 1 end
if redis.call('TYPE', KEYS[2]).ok == 'list' and redis.call('LPOS', KEYS[2], ARGV[1]) then return 1 end
if redis.call('TYPE', KEYS[2]).ok == 'set' and redis.call('SISMEMBER', KEYS[2], ARGV[1]) == 1 then return 1 end
return 0
`;

// A DECR on a key that expired meanwhile would leave -1 without a TTL.
export const FORGIVE_TRY = `
if redis.call('EXISTS', KEYS[1]) == 1 then redis.call('DECR', KEYS[1]) end
return 0`;
