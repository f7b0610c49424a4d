//! The store in Redis: what replicas behind a load balancer share.
//!
//! Every value is a hash at `{prefix}:{<owner tag>}:<kind>:<name>` with the fields `v` (its
//! version) and either `d` (bytes) or `n` (a counter), expiring with `PEXPIRE`. The owner's tag
//! is the key's Redis Cluster hash tag (the first `{...}` of a key; the prefix may hold no
//! brace), so one owner's keys share a slot and a script may touch them all. Beside them, the
//! owner's index `{prefix}:{<owner tag>}#index` is a set of the owner's keys, so that `clear`
//! never scans the keyspace.
//!
//! Every read-modify-write is one Lua script (EVALSHA, loaded again when the server lost it):
//! a script runs alone on the server, where WATCH/MULTI on a connection that many tasks share
//! would mix their transactions.

use std::borrow::Cow;
use std::fmt;
use std::sync::LazyLock;
use std::time::Duration;

use redis::aio::{ConnectionManager, ConnectionManagerConfig};
use redis::{FromRedisValue, RedisError, Script, ScriptInvocation};

use super::{
    Count, Counted, Counters, Expect, Owner, StateError, StateKey, StateStore, StoreFuture, Version, Versioned, Write,
    Written,
};

const STORE: &str = "redis";

/// The longest time to live a value is given, in milliseconds (about 35,000 years): Lua reads
/// numbers as doubles, exact up to 2^53, and Redis refuses an expiry past its clock's range.
const MAX_TTL_MS: u64 = 1 << 50;

/// The largest interval or tolerance of a rate-limit cell, in microseconds (about 140 years):
/// the cell's arithmetic happens in Lua's doubles, exact up to 2^53.
const MAX_CELL_MICROS: u64 = 1 << 52;

/// State in Redis, shared by every process that connects to the same server with the same
/// prefix: replicas behind a load balancer serve one conversation interchangeably.
///
/// Versions are 64 random bits drawn here for each write: two replicas never need to agree on a
/// counter, and a version given once is not given again to the same key (a compare-and-set
/// against a value that was deleted and written back fails), but for a chance of one in 2^64
/// per pair of writes. Rate limits run on the Redis server's clock (`TIME`), so the replicas'
/// clocks do not matter.
///
/// Each operation is bounded by the timeout ([`RedisStoreBuilder::timeout`]); a server that
/// cannot be reached or does not answer in time gives [`StateError::Unavailable`], and the
/// connection is made again in the background, so operations succeed again once the server is
/// back. The URL's password is in no error and no `Debug` output.
pub struct RedisStore {
    manager: ConnectionManager,
    prefix: String,
    timeout: Duration,
    url: Redacted,
}

/// Settings of a [`RedisStore`]: [`RedisStore::builder`].
#[derive(Clone)]
pub struct RedisStoreBuilder {
    url: String,
    prefix: String,
    timeout: Duration,
}

impl RedisStore {
    /// The prefix of every key when the host sets none: `tool-core`.
    pub const DEFAULT_PREFIX: &'static str = "tool-core";

    /// How long one operation may take when the host sets no bound: 2 seconds.
    pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(2);

    /// A store at `url` (`redis://[user][:password@]host[:port][/db]`, or
    /// `redis+unix:///path?pass=...`), with the default prefix and timeout;
    /// [`RedisStoreBuilder::connect`] connects.
    pub fn builder(url: impl Into<String>) -> RedisStoreBuilder {
        RedisStoreBuilder { url: url.into(), prefix: Self::DEFAULT_PREFIX.to_owned(), timeout: Self::DEFAULT_TIMEOUT }
    }
}

impl RedisStoreBuilder {
    /// What every key starts with (default [`RedisStore::DEFAULT_PREFIX`]): stores with
    /// different prefixes on one server never see each other's values. It may not hold `{` or
    /// `}` (the owner's hash tag must be the first in the key): [`RedisStoreBuilder::connect`]
    /// refuses such a prefix.
    pub fn prefix(mut self, prefix: impl Into<String>) -> Self {
        self.prefix = prefix.into();
        self
    }

    /// How long one operation (and the connection itself) may take, from the call to the
    /// answer (default [`RedisStore::DEFAULT_TIMEOUT`]); a slower one is
    /// [`StateError::Unavailable`].
    pub fn timeout(mut self, timeout: Duration) -> Self {
        self.timeout = timeout;
        self
    }

    /// Connects to the server, within the timeout. [`StateError::Unavailable`] when the URL is
    /// not a Redis URL, the prefix holds a brace, or the server cannot be reached, refuses the
    /// credentials or does not answer in time.
    pub async fn connect(self) -> Result<RedisStore, StateError> {
        let Some(url) = Redacted::parse(&self.url) else {
            return Err(unavailable(
                "the URL given to RedisStore::builder is not a Redis URL (redis://[user][:password@]host[:port][/db], \
                 rediss://..., or redis+unix:///path)"
                    .to_owned(),
            ));
        };
        if self.prefix.contains(['{', '}']) {
            return Err(unavailable(format!(
                "the key prefix {:?} (RedisStoreBuilder::prefix) holds a brace, and the owner's hash tag must be the \
                 first {{...}} of every key",
                self.prefix
            )));
        }
        let client = redis::Client::open(self.url.as_str()).map_err(|error| url.unavailable(&error))?;
        let config = ConnectionManagerConfig::new()
            .set_connection_timeout(Some(self.timeout))
            .set_response_timeout(Some(self.timeout))
            // Reconnection goes on in the background while operations fail fast: once the
            // server is back, the next attempt is at most half a second away.
            .set_min_delay(Duration::from_millis(50))
            .set_max_delay(Duration::from_millis(500));
        let manager = match tokio::time::timeout(self.timeout, ConnectionManager::new_with_config(client, config)).await
        {
            Ok(Ok(manager)) => manager,
            Ok(Err(error)) => return Err(url.unavailable(&error)),
            Err(_) => return Err(url.late(self.timeout)),
        };
        Ok(RedisStore { manager, prefix: self.prefix, timeout: self.timeout, url })
    }
}

impl fmt::Debug for RedisStoreBuilder {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let url = match Redacted::parse(&self.url) {
            Some(url) => url.shown,
            // What does not parse cannot be told apart from its password: none of it is shown.
            None => "(not a Redis URL)".to_owned(),
        };
        f.debug_struct("RedisStoreBuilder")
            .field("url", &url)
            .field("prefix", &self.prefix)
            .field("timeout", &self.timeout)
            .finish()
    }
}

impl fmt::Debug for RedisStore {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("RedisStore")
            .field("url", &self.url.shown)
            .field("prefix", &self.prefix)
            .field("timeout", &self.timeout)
            .finish()
    }
}

/// The URL as it may be shown, and the secrets no text may hold.
struct Redacted {
    shown: String,
    secrets: Vec<String>,
}

impl Redacted {
    /// The URL's shown form and secrets, when it is a Redis URL.
    fn parse(url: &str) -> Option<Redacted> {
        let parsed = redis::parse_redis_url(url)?;
        let mut shown = parsed.clone();
        let mut secrets = Vec::new();
        if let Some(password) = parsed.password() {
            // As written in the URL (escaped) and as sent to the server.
            secrets.push(password.to_owned());
            let _ = shown.set_password(Some("***"));
        }
        if let Ok(client) = redis::Client::open(url)
            && let Some(password) = client.get_connection_info().redis_settings().password()
        {
            secrets.push(password.to_owned());
        }
        // A Unix socket's URL carries its password in the query (`?pass=`).
        if parsed.query_pairs().any(|(name, _)| name == "pass") {
            let mut query = shown.query_pairs_mut();
            query.clear();
            for (name, value) in parsed.query_pairs() {
                if name == "pass" {
                    query.append_pair(&name, "***");
                    secrets.push(value.into_owned());
                } else {
                    query.append_pair(&name, &value);
                }
            }
        }
        secrets.retain(|secret| !secret.is_empty());
        // The longest first, so that a secret holding another is replaced whole.
        secrets.sort_by_key(|secret| std::cmp::Reverse(secret.len()));
        secrets.dedup();
        Some(Redacted { shown: shown.to_string(), secrets })
    }

    /// `text` with every secret replaced.
    fn redact(&self, text: &str) -> String {
        self.secrets.iter().fold(text.to_owned(), |text, secret| text.replace(secret.as_str(), "***"))
    }

    fn unavailable(&self, error: &RedisError) -> StateError {
        unavailable(self.redact(&format!("{}: {error}", self.shown)))
    }

    fn late(&self, timeout: Duration) -> StateError {
        unavailable(format!("{}: no answer within {timeout:?} (RedisStoreBuilder::timeout)", self.shown))
    }
}

fn unavailable(reason: String) -> StateError {
    StateError::Unavailable { store: STORE, reason }
}

/// What a script's keys are, to name the one an `UNREADABLE` error points at.
#[derive(Clone, Copy)]
enum Named<'a> {
    Key(&'a StateKey),
    Index(&'a Owner),
}

impl fmt::Display for Named<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Named::Key(key) => write!(f, "{key}"),
            Named::Index(owner) => write!(f, "{}:(index)", owner.tag()),
        }
    }
}

impl RedisStore {
    /// The owner's part of every key: the prefix and the hash tag.
    fn base(&self, owner: &Owner) -> String {
        format!("{}:{{{}}}", self.prefix, owner.tag())
    }

    fn key(&self, key: &StateKey) -> String {
        format!("{}:{}:{}", self.base(key.owner()), escape(key.kind()), key.name())
    }

    /// The set of the owner's keys. Beside the hash tag, where no value's key has anything
    /// but `:`.
    fn index(&self, owner: &Owner) -> String {
        format!("{}#index", self.base(owner))
    }

    /// Runs a script within the timeout; its `UNREADABLE <i> <why>` errors name `keys[i-1]`.
    async fn run<T: FromRedisValue>(
        &self,
        invocation: &ScriptInvocation<'_>,
        keys: &[Named<'_>],
    ) -> Result<T, StateError> {
        let mut connection = self.manager.clone();
        match tokio::time::timeout(self.timeout, invocation.invoke_async(&mut connection)).await {
            Ok(Ok(value)) => Ok(value),
            Ok(Err(error)) => Err(self.failure(&error, keys)),
            Err(_) => Err(self.url.late(self.timeout)),
        }
    }

    /// `script` prepared for a compare-and-set (see the `write` script): KEYS the key, its
    /// owner's index, `with` when given, the fence when there is one; ARGV as `write` takes
    /// them. With the names of its keys and the version the write would give.
    fn invoke_write<'s>(
        &self,
        script: &'s Script,
        key: &'s StateKey,
        write: &'s Write,
        with: Option<&'s StateKey>,
    ) -> Result<(ScriptInvocation<'s>, Vec<Named<'s>>, u64), StateError> {
        let version = new_version()?;
        let (expect, expected) = match write.expect {
            Expect::Any => ("any", String::new()),
            Expect::Absent => ("absent", String::new()),
            Expect::Version(version) => ("version", version.0.to_string()),
        };
        let mut invocation = script.prepare_invoke();
        invocation.key(self.key(key)).key(self.index(key.owner()));
        let mut named = vec![Named::Key(key), Named::Index(key.owner())];
        if let Some(with) = with {
            invocation.key(self.key(with));
            named.push(Named::Key(with));
        }
        let fence_version = match &write.fence {
            Some((fence, version)) => {
                invocation.key(self.key(fence));
                named.push(Named::Key(fence));
                version.0.to_string()
            }
            None => String::new(),
        };
        invocation
            .arg(expect)
            .arg(expected)
            .arg(version.to_string())
            .arg(ttl_ms(write.ttl))
            .arg(&write.value[..])
            .arg(fence_version);
        Ok((invocation, named, version))
    }

    fn failure(&self, error: &RedisError, keys: &[Named<'_>]) -> StateError {
        let unreadable = |index: usize, reason: &str| StateError::Unreadable {
            store: STORE,
            key: keys.get(index).map_or_else(String::new, ToString::to_string),
            reason: reason.to_owned(),
        };
        if error.code() == Some("UNREADABLE") {
            let detail = error.detail().unwrap_or_default();
            // Redis adds where the script raised it.
            let detail = detail.split(" script: ").next().unwrap_or(detail);
            let (index, why) = detail.split_once(' ').unwrap_or((detail, ""));
            let index = index.parse::<usize>().unwrap_or(1).saturating_sub(1);
            return unreadable(index, why);
        }
        if error.kind() == redis::ErrorKind::UnexpectedReturnType {
            return unreadable(0, &error.to_string());
        }
        self.url.unavailable(error)
    }
}

/// A kind with `%` and `:` escaped, so that the first `:` after it ends it: kinds never run
/// into names.
fn escape(kind: &str) -> Cow<'_, str> {
    if kind.contains([':', '%']) {
        Cow::Owned(kind.replace('%', "%25").replace(':', "%3A"))
    } else {
        Cow::Borrowed(kind)
    }
}

/// What a compare-and-set script answered, as a [`Written`].
fn written(outcome: &str, found: Option<String>, version: u64, key: &StateKey) -> Result<Written, StateError> {
    match outcome {
        "done" => Ok(Written::Done(Version(version))),
        "fenced" => Ok(Written::Fenced),
        "conflict" => Ok(Written::Conflict(found.map(|found| parse_version(&found, key)).transpose()?)),
        other => Err(StateError::Unreadable {
            store: STORE,
            key: key.to_string(),
            reason: format!("a write answered {other:?}"),
        }),
    }
}

/// A new version: 64 random bits.
fn new_version() -> Result<u64, StateError> {
    getrandom::u64().map_err(|error| unavailable(format!("no random bits for a version: {error}")))
}

fn ttl_ms(ttl: Duration) -> u64 {
    u64::try_from(ttl.as_nanos().div_ceil(1_000_000)).unwrap_or(u64::MAX).min(MAX_TTL_MS)
}

fn cell_micros(duration: Duration) -> u64 {
    u64::try_from(duration.as_micros()).unwrap_or(u64::MAX).min(MAX_CELL_MICROS)
}

fn parse_version(text: &str, key: &StateKey) -> Result<Version, StateError> {
    text.parse::<u64>().map(Version).map_err(|_| StateError::Unreadable {
        store: STORE,
        key: key.to_string(),
        reason: format!("a version that is not a number: {text:?}"),
    })
}

fn parse_number(text: &str, key: &StateKey) -> Result<i64, StateError> {
    text.parse::<i64>().map_err(|_| StateError::Unreadable {
        store: STORE,
        key: key.to_string(),
        reason: format!("a counter that is not an integer: {text:?}"),
    })
}

/// What every script begins with: reading an entry and keeping an owner's index.
macro_rules! prelude {
    () => {
        r#"
local function unreadable(i, why)
  error({err = 'UNREADABLE ' .. i .. ' ' .. why})
end
-- KEYS[i] as this store writes it: nil when absent, else its version and its bytes (d) or
-- counter (n); anything else is unreadable (and nothing has been written yet).
local function entry(i)
  local key = KEYS[i]
  local kind = redis.call('TYPE', key)['ok']
  if kind == 'none' then return nil end
  if kind ~= 'hash' then unreadable(i, 'a ' .. kind .. ', not a hash') end
  local f = redis.call('HMGET', key, 'v', 'd', 'n')
  local v, d, n = f[1], f[2], f[3]
  if not v or not string.match(v, '^%d+$') or #v > 20 then unreadable(i, 'a hash without a version') end
  if (d and n) or (not d and not n) then unreadable(i, 'a hash with neither bytes nor a counter') end
  if n and not string.match(n, '^%-?%d+$') then unreadable(i, 'a counter that is not an integer') end
  return {v = v, d = d, n = n}
end
local function check_index(i)
  local kind = redis.call('TYPE', KEYS[i])['ok']
  if kind ~= 'none' and kind ~= 'set' then unreadable(i, 'an index that is a ' .. kind) end
end
-- KEYS[k] listed in its owner's index KEYS[i] while it lives ttl more milliseconds; the index
-- lives as long as its longest-lived key. Each key added checks two members at random and drops
-- those that expired, which keeps the index at about twice the owner's live keys.
local function index(i, k, ttl)
  local idx = KEYS[i]
  if tonumber(ttl) <= 0 then
    redis.call('SREM', idx, KEYS[k])
    return
  end
  if redis.call('SADD', idx, KEYS[k]) == 1 then
    for _, member in ipairs(redis.call('SRANDMEMBER', idx, 2)) do
      if redis.call('EXISTS', member) == 0 then redis.call('SREM', idx, member) end
    end
  end
  if redis.call('PTTL', idx) < tonumber(ttl) then redis.call('PEXPIRE', idx, ttl) end
end-- The compare-and-set of KEYS[k] (its owner's index KEYS[i], fenced by KEYS[f] when f is set),
-- with ARGV[1..6] as `write` takes them; every key it reads is read before it writes.
-- {'done', version}, {'conflict', found version or false} or {'fenced', false}.
local function cas(k, i, f)
  if f then
    local fence = entry(f)
    if not fence or fence.v ~= ARGV[6] then return {'fenced', false} end
  end
  local found = entry(k)
  local v = found and found.v or false
  if (ARGV[1] == 'absent' and found) or (ARGV[1] == 'version' and v ~= ARGV[2]) then
    return {'conflict', v}
  end
  redis.call('DEL', KEYS[k])
  redis.call('HSET', KEYS[k], 'v', ARGV[3], 'd', ARGV[5])
  redis.call('PEXPIRE', KEYS[k], ARGV[4])
  index(i, k, ARGV[4])
  return {'done', ARGV[3]}
end
"#
    };
}

struct Scripts {
    read: Script,
    write: Script,
    write_then_read: Script,
    write_then_delete: Script,
    read_and_touch: Script,
    delete: Script,
    touch: Script,
    take: Script,
    count: Script,
    clear: Script,
}

static SCRIPTS: LazyLock<Scripts> = LazyLock::new(|| Scripts {
    // KEYS: the key. Nil, or its version and value.
    read: Script::new(concat!(
        prelude!(),
        r#"
local e = entry(1)
if not e then return false end
return {e.v, e.d or e.n}
"#
    )),
    // KEYS: the key, its owner's index, the fence (optional). ARGV: any|absent|version, the
    // expected version, the new version, the ttl in ms, the value, the fence's version.
    write: Script::new(concat!(
        prelude!(),
        r#"
check_index(2)
return cas(1, 2, KEYS[3] and 3)
"#
    )),
    // KEYS: the key, its owner's index, the key to read (the same owner's), the fence
    // (optional). ARGV: as `write`. The write's outcome and version, then, when it was done, the
    // read key's version and value after it.
    write_then_read: Script::new(concat!(
        prelude!(),
        r#"
check_index(2)
-- Read before anything is written: an unreadable value changes nothing.
entry(3)
local w = cas(1, 2, KEYS[4] and 4)
if w[1] ~= 'done' then return {w[1], w[2], false, false} end
local r = entry(3)
if not r then return {w[1], w[2], false, false} end
return {w[1], w[2], r.v, r.d or r.n}
"#
    )),
    // KEYS: the key, its owner's index, the key to delete (the same owner's), the fence
    // (optional). ARGV: as `write`, then the version the key to delete must have. The write's
    // outcome and version; the key is deleted only when the write was done.
    write_then_delete: Script::new(concat!(
        prelude!(),
        r#"
check_index(2)
-- Read before anything is written: an unreadable value changes nothing.
local gone = entry(3)
local w = cas(1, 2, KEYS[4] and 4)
if w[1] == 'done' then
  -- Read again: the write may have been to the same key.
  gone = entry(3)
  if gone and gone.v == ARGV[7] then
    redis.call('DEL', KEYS[3])
    redis.call('SREM', KEYS[2], KEYS[3])
  end
end
return w
"#
    )),
    // KEYS: the key, its owner's index. ARGV: the ttl in ms. Nil, or its version and value.
    read_and_touch: Script::new(concat!(
        prelude!(),
        r#"
check_index(2)
local e = entry(1)
if not e then return false end
redis.call('PEXPIRE', KEYS[1], ARGV[1])
index(2, 1, ARGV[1])
return {e.v, e.d or e.n}
"#
    )),
    // KEYS: the key, its owner's index. ARGV: the expected version, or '' for any.
    delete: Script::new(concat!(
        prelude!(),
        r#"
check_index(2)
local e = entry(1)
if not e or (ARGV[1] ~= '' and e.v ~= ARGV[1]) then return 0 end
redis.call('DEL', KEYS[1])
redis.call('SREM', KEYS[2], KEYS[1])
return 1
"#
    )),
    // KEYS: the key, its owner's index. ARGV: the ttl in ms.
    touch: Script::new(concat!(
        prelude!(),
        r#"
check_index(2)
if not entry(1) then return 0 end
redis.call('PEXPIRE', KEYS[1], ARGV[1])
index(2, 1, ARGV[1])
return 1
"#
    )),
    // KEYS: the key, its owner's index. Nil, or the value it removed.
    take: Script::new(concat!(
        prelude!(),
        r#"
check_index(2)
local e = entry(1)
if not e then return false end
redis.call('DEL', KEYS[1])
redis.call('SREM', KEYS[2], KEYS[1])
return e.d or e.n
"#
    )),
    // KEYS: each step's counter and its owner's index. ARGV: the ttl in ms, then four per step:
    // read|add|reset|admit, the amount (or the cell's interval in µs), the cell's tolerance in
    // µs, the version of what the step writes. {'ok', value...} or {'refused', index, wait µs}.
    count: Script::new(concat!(
        prelude!(),
        r#"
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000000 + tonumber(t[2])
-- Numbers go back to Redis as text of their digits: Lua would write a large one with an exponent.
local ttl = tonumber(ARGV[1])
local steps = #KEYS / 2
-- Every key is read before anything is written: an unreadable one changes nothing.
for j = 1, steps do
  entry(2 * j - 1)
  check_index(2 * j)
end
-- A counter's value as text (64-bit exact), 0 for none or bytes.
local function counter(j)
  local e = entry(2 * j - 1)
  if e and e.n then return e.n end
  return '0'
end
-- Every limit is checked before any place is taken or any counter changes.
for j = 1, steps do
  local a = 2 + 4 * (j - 1)
  if ARGV[a] == 'admit' then
    local arrival = math.max(tonumber(counter(j)), now)
    local tolerance = tonumber(ARGV[a + 2])
    if arrival > now + tolerance then
      return {'refused', tostring(j - 1), string.format('%.0f', arrival - tolerance - now)}
    end
  end
end
local out = {'ok'}
for j = 1, steps do
  local a = 2 + 4 * (j - 1)
  local op, key, version = ARGV[a], KEYS[2 * j - 1], ARGV[a + 3]
  local value
  if op == 'read' then
    value = counter(j)
  elseif op == 'add' then
    local before = counter(j)
    redis.call('DEL', key)
    redis.call('HSET', key, 'v', version, 'n', before)
    -- HINCRBY is exact on 64 bits; past them it refuses, and the counter saturates instead.
    local sum = redis.pcall('HINCRBY', key, 'n', ARGV[a + 1])
    if type(sum) == 'table' and sum.err then
      if string.sub(ARGV[a + 1], 1, 1) == '-' then value = '-9223372036854775808' else value = '9223372036854775807' end
      redis.call('HSET', key, 'n', value)
    else
      value = redis.call('HGET', key, 'n')
    end
    redis.call('PEXPIRE', key, ARGV[1])
    index(2 * j, 2 * j - 1, ARGV[1])
  elseif op == 'reset' then
    value = counter(j)
    redis.call('DEL', key)
    redis.call('SREM', KEYS[2 * j], key)
  else
    local interval = tonumber(ARGV[a + 1])
    local arrival = math.max(tonumber(counter(j)), now) + interval
    redis.call('DEL', key)
    redis.call('HSET', key, 'v', version, 'n', string.format('%.0f', arrival))
    local life = math.max(ttl, math.ceil(interval / 1000))
    redis.call('PEXPIRE', key, string.format('%.0f', life))
    index(2 * j, 2 * j - 1, string.format('%.0f', life))
    value = '0'
  end
  out[#out + 1] = value
end
return out
"#
    )),
    // KEYS: the owner's index. ARGV: the start of the keys to remove (the owner's, or one kind's
    // of the owner's). How many were removed.
    clear: Script::new(concat!(
        prelude!(),
        r#"
local kind = redis.call('TYPE', KEYS[1])['ok']
if kind == 'none' then return 0 end
if kind ~= 'set' then unreadable(1, 'an index that is a ' .. kind) end
local n = 0
for _, member in ipairs(redis.call('SMEMBERS', KEYS[1])) do
  if string.sub(member, 1, #ARGV[1]) == ARGV[1] then
    n = n + redis.call('DEL', member)
    redis.call('SREM', KEYS[1], member)
  end
end
return n
"#
    )),
});

impl StateStore for RedisStore {
    fn kind(&self) -> &'static str {
        STORE
    }

    fn read<'a>(&'a self, key: &'a StateKey) -> StoreFuture<'a, Option<Versioned>> {
        Box::pin(async move {
            let mut invocation = SCRIPTS.read.prepare_invoke();
            invocation.key(self.key(key));
            let found: Option<(String, Vec<u8>)> = self.run(&invocation, &[Named::Key(key)]).await?;
            found.map(|(version, value)| Ok(Versioned { value, version: parse_version(&version, key)? })).transpose()
        })
    }

    fn write<'a>(&'a self, key: &'a StateKey, write: Write) -> StoreFuture<'a, Written> {
        Box::pin(async move {
            let (invocation, named, version) = self.invoke_write(&SCRIPTS.write, key, &write, None)?;
            let (outcome, found): (String, Option<String>) = self.run(&invocation, &named).await?;
            written(&outcome, found, version, key)
        })
    }

    fn write_then_read<'a>(
        &'a self,
        key: &'a StateKey,
        write: Write,
        read: &'a StateKey,
    ) -> StoreFuture<'a, (Written, Option<Versioned>)> {
        Box::pin(async move {
            if read.owner() != key.owner() {
                // Another owner's key may live in another Cluster slot: two steps, as the
                // trait's default.
                return super::store::write_then_read_in_turn(self, key, write, read).await;
            }
            let (invocation, named, version) = self.invoke_write(&SCRIPTS.write_then_read, key, &write, Some(read))?;
            let (outcome, found, read_version, value): (String, Option<String>, Option<String>, Option<Vec<u8>>) =
                self.run(&invocation, &named).await?;
            let written = written(&outcome, found, version, key)?;
            let found = match (read_version, value) {
                (Some(version), Some(value)) => Some(Versioned { value, version: parse_version(&version, read)? }),
                (None, None) => None,
                (version, value) => {
                    return Err(StateError::Unreadable {
                        store: STORE,
                        key: read.to_string(),
                        reason: format!(
                            "a read answered a version without a value or a value without a version ({version:?}, {} bytes)",
                            value.map_or(0, |value| value.len())
                        ),
                    });
                }
            };
            Ok((written, found))
        })
    }

    fn write_then_delete<'a>(
        &'a self,
        key: &'a StateKey,
        write: Write,
        delete: &'a StateKey,
        expected: Version,
    ) -> StoreFuture<'a, Written> {
        Box::pin(async move {
            if delete.owner() != key.owner() {
                // Another owner's key may live in another Cluster slot: two steps, as the
                // trait's default.
                return super::store::write_then_delete_in_turn(self, key, write, delete, expected).await;
            }
            let (mut invocation, named, version) =
                self.invoke_write(&SCRIPTS.write_then_delete, key, &write, Some(delete))?;
            invocation.arg(expected.0.to_string());
            let (outcome, found): (String, Option<String>) = self.run(&invocation, &named).await?;
            written(&outcome, found, version, key)
        })
    }

    fn read_and_touch<'a>(&'a self, key: &'a StateKey, ttl: Duration) -> StoreFuture<'a, Option<Versioned>> {
        Box::pin(async move {
            let mut invocation = SCRIPTS.read_and_touch.prepare_invoke();
            invocation.key(self.key(key)).key(self.index(key.owner())).arg(ttl_ms(ttl));
            let found: Option<(String, Vec<u8>)> =
                self.run(&invocation, &[Named::Key(key), Named::Index(key.owner())]).await?;
            found.map(|(version, value)| Ok(Versioned { value, version: parse_version(&version, key)? })).transpose()
        })
    }

    fn delete<'a>(&'a self, key: &'a StateKey, expected: Option<Version>) -> StoreFuture<'a, bool> {
        Box::pin(async move {
            let mut invocation = SCRIPTS.delete.prepare_invoke();
            invocation
                .key(self.key(key))
                .key(self.index(key.owner()))
                .arg(expected.map_or_else(String::new, |version| version.0.to_string()));
            self.run(&invocation, &[Named::Key(key), Named::Index(key.owner())]).await
        })
    }

    fn touch<'a>(&'a self, key: &'a StateKey, ttl: Duration) -> StoreFuture<'a, bool> {
        Box::pin(async move {
            let mut invocation = SCRIPTS.touch.prepare_invoke();
            invocation.key(self.key(key)).key(self.index(key.owner())).arg(ttl_ms(ttl));
            self.run(&invocation, &[Named::Key(key), Named::Index(key.owner())]).await
        })
    }

    fn take<'a>(&'a self, key: &'a StateKey) -> StoreFuture<'a, Option<Vec<u8>>> {
        Box::pin(async move {
            let mut invocation = SCRIPTS.take.prepare_invoke();
            invocation.key(self.key(key)).key(self.index(key.owner()));
            self.run(&invocation, &[Named::Key(key), Named::Index(key.owner())]).await
        })
    }

    fn count<'a>(&'a self, counters: &'a Counters) -> StoreFuture<'a, Counted> {
        Box::pin(async move {
            if counters.steps.is_empty() {
                return Ok(Counted::default());
            }
            let mut invocation = SCRIPTS.count.prepare_invoke();
            invocation.arg(ttl_ms(counters.ttl));
            let mut named = Vec::with_capacity(counters.steps.len() * 2);
            for (key, step) in &counters.steps {
                invocation.key(self.key(key)).key(self.index(key.owner()));
                named.extend([Named::Key(key), Named::Index(key.owner())]);
                let (op, amount, tolerance) = match step {
                    Count::Read => ("read", 0, 0),
                    Count::Add(n) => ("add", *n, 0),
                    Count::Reset => ("reset", 0, 0),
                    Count::Admit { interval, tolerance } => {
                        ("admit", cell_micros(*interval) as i64, cell_micros(*tolerance) as i64)
                    }
                };
                // A version for each step that writes; reads and resets write none.
                let version = match step {
                    Count::Read | Count::Reset => String::new(),
                    Count::Add(_) | Count::Admit { .. } => new_version()?.to_string(),
                };
                invocation.arg(op).arg(amount).arg(tolerance).arg(version);
            }
            let answer: Vec<String> = self.run(&invocation, &named).await?;
            let first = &counters.steps[0].0;
            match answer.split_first() {
                Some((outcome, values)) if outcome == "ok" && values.len() == counters.steps.len() => {
                    let values = values
                        .iter()
                        .zip(&counters.steps)
                        .map(|(value, (key, _))| parse_number(value, key))
                        .collect::<Result<_, _>>()?;
                    Ok(Counted { values, refused: None })
                }
                Some((outcome, [index, wait])) if outcome == "refused" => {
                    let index = index.parse::<usize>().ok().filter(|index| *index < counters.steps.len());
                    let wait = wait.parse::<u64>().ok();
                    match (index, wait) {
                        (Some(index), Some(wait)) => {
                            Ok(Counted { values: Vec::new(), refused: Some((index, Duration::from_micros(wait))) })
                        }
                        _ => Err(StateError::Unreadable {
                            store: STORE,
                            key: first.to_string(),
                            reason: format!("a refusal that does not read: {answer:?}"),
                        }),
                    }
                }
                _ => Err(StateError::Unreadable {
                    store: STORE,
                    key: first.to_string(),
                    reason: format!("a count answered {answer:?}"),
                }),
            }
        })
    }

    fn clear<'a>(&'a self, owner: &'a Owner, kind: Option<&'a str>) -> StoreFuture<'a, usize> {
        Box::pin(async move {
            let start = match kind {
                Some(kind) => format!("{}:{}:", self.base(owner), escape(kind)),
                None => format!("{}:", self.base(owner)),
            };
            let mut invocation = SCRIPTS.clear.prepare_invoke();
            invocation.key(self.index(owner)).arg(start);
            self.run(&invocation, &[Named::Index(owner)]).await
        })
    }

    fn is_shared(&self) -> bool {
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_urls_password_is_shown_nowhere_in_any_form() {
        let url = Redacted::parse("redis://user:p%40ss%20word@example.com:6380/2").unwrap();
        assert_eq!(url.shown, "redis://user:***@example.com:6380/2");
        // As written in the URL, and as the server gets it.
        assert_eq!(url.secrets, vec!["p%40ss%20word".to_owned(), "p@ss word".to_owned()]);
        assert_eq!(url.redact("WRONGPASS p@ss word, p%40ss%20word"), "WRONGPASS ***, ***");
        let socket = Redacted::parse("redis+unix:///run/redis.sock?db=1&pass=s%26cret").unwrap();
        assert_eq!(socket.shown, "redis+unix:///run/redis.sock?db=1&pass=***");
        assert_eq!(socket.secrets, vec!["s&cret".to_owned()]);
        let none = Redacted::parse("redis://127.0.0.1").unwrap();
        assert_eq!((none.shown.as_str(), none.secrets.len()), ("redis://127.0.0.1", 0));
        assert!(Redacted::parse("http://user:secret@example.com").is_none());
    }

    #[test]
    fn kinds_never_run_into_names() {
        assert_eq!(escape("stateful"), "stateful");
        assert_eq!(escape("a:b"), "a%3Ab");
        assert_eq!(escape("100%:"), "100%25%3A");
    }

    #[test]
    fn lives_are_whole_milliseconds_rounded_up_and_bounded() {
        assert_eq!(ttl_ms(Duration::ZERO), 0);
        assert_eq!(ttl_ms(Duration::from_micros(1)), 1);
        assert_eq!(ttl_ms(Duration::from_millis(1500)), 1500);
        assert_eq!(ttl_ms(Duration::MAX), MAX_TTL_MS);
        assert_eq!(cell_micros(Duration::MAX), MAX_CELL_MICROS);
    }
}
