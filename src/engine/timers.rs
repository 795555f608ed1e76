//! The engine's deadlines, in one table (as `quinn-proto` keeps its
//! timers): each is a [`Timer`] — of the process, or of one session's
//! running turn — and a time. `poll_timeout()` is the earliest; a call of
//! `timeout(now)` takes the ones that are due, earliest first.

/// One deadline.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Timer {
    /// A session's running attempt has printed nothing for its idle limit.
    Idle(u64),
    /// A session's turn has run for its whole `maxDuration`.
    Deadline(u64),
    /// The grace after a session's turn was stopped is over: kill the tree.
    Kill(u64),
    /// The wait before a session's turn is tried again is over.
    Retry(u64),
    /// The agent has said nothing for the idle limit while starting.
    Setup,
    /// A closing process is given this long to exit before it is killed.
    CloseKill,
    /// Nothing has run for `idleClose`: the process stops.
    IdleClose,
    /// A process stopped for `idleClose` is killed if still there.
    SuspendKill,
}

/// The table: at most one time per timer.
#[derive(Clone, Debug, Default)]
pub struct TimerTable {
    entries: Vec<(Timer, u64)>,
}

impl TimerTable {
    /// Sets `timer` to fire at `at` (replacing its time).
    pub fn set(&mut self, timer: Timer, at: u64) {
        match self.entries.iter_mut().find(|(t, _)| *t == timer) {
            Some(entry) => entry.1 = at,
            None => self.entries.push((timer, at)),
        }
    }

    /// Sets `timer` unless it is set already.
    pub fn set_once(&mut self, timer: Timer, at: u64) {
        if self.get(timer).is_none() {
            self.entries.push((timer, at));
        }
    }

    pub fn clear(&mut self, timer: Timer) {
        self.entries.retain(|(t, _)| *t != timer);
    }

    pub fn get(&self, timer: Timer) -> Option<u64> {
        self.entries
            .iter()
            .find_map(|(t, at)| (*t == timer).then_some(*at))
    }

    /// Clears every deadline of session `key`'s turn.
    pub fn clear_turn(&mut self, key: u64) {
        self.entries.retain(|(t, _)| t.session() != Some(key));
    }

    /// The earliest time of all.
    pub fn next(&self) -> Option<u64> {
        self.entries.iter().map(|(_, at)| *at).min()
    }

    /// The timers due at `now` (taken from the table): a turn's kill, then
    /// its deadline, then its idle limit (a host woken late finds the
    /// hardest bound first), then the rest, earliest first.
    pub fn take_due(&mut self, now: u64) -> Vec<Timer> {
        let mut due: Vec<(Timer, u64)> = Vec::new();
        self.entries.retain(|&(t, at)| {
            let fire = at <= now;
            if fire {
                due.push((t, at));
            }
            !fire
        });
        due.sort_by_key(|&(t, at)| (t.rank(), at));
        due.into_iter().map(|(t, _)| t).collect()
    }
}

impl Timer {
    fn rank(self) -> u8 {
        match self {
            Timer::Kill(_) => 0,
            Timer::Deadline(_) => 1,
            Timer::Idle(_) => 2,
            _ => 3,
        }
    }

    /// The session whose turn it belongs to.
    pub fn session(self) -> Option<u64> {
        match self {
            Timer::Idle(k) | Timer::Deadline(k) | Timer::Kill(k) | Timer::Retry(k) => Some(k),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_time_per_timer_earliest_first() {
        let mut t = TimerTable::default();
        t.set(Timer::Idle(0), 300);
        t.set(Timer::Deadline(0), 900);
        t.set(Timer::Setup, 100);
        t.set(Timer::Idle(0), 500); // moved, not added
        assert_eq!(t.next(), Some(100));
        t.set_once(Timer::Setup, 50); // kept as it was
        assert_eq!(t.get(Timer::Setup), Some(100));
        assert_eq!(t.take_due(499), vec![Timer::Setup]);
        assert_eq!(t.take_due(1_000), vec![Timer::Deadline(0), Timer::Idle(0)]);
        assert_eq!(t.next(), None);
        t.set(Timer::Kill(3), 10);
        t.set(Timer::CloseKill, 10);
        t.clear_turn(3);
        assert_eq!(t.take_due(10), vec![Timer::CloseKill]);
    }
}
