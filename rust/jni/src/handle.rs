// Copyright 2026 The vitess-cdc Authors
// SPDX-License-Identifier: Apache-2.0

//! Handles: `Box::into_raw(Box<Arc<T>>)` as a `jlong`, validated through a registry.
//!
//! Java holds only the number. Every use looks it up in the registry first, under the registry
//! lock, and clones the `Arc` before the lock is released; a number that is not registered (never
//! issued, already closed, from another library copy, garbage) is refused without being
//! dereferenced. Removal takes the pointer out of the registry before freeing the `Box`, so a
//! concurrent lookup either sees the live object or nothing. The `Arc` keeps the object alive for
//! a call that is still running (a `poll` blocked in another thread) after `close` removed it.

use crate::error::{BridgeError, BridgeResult};
use jni::sys::jlong;
use std::collections::HashSet;
use std::sync::{Arc, LazyLock, Mutex, MutexGuard};

/// A registry of live handles to `T`.
pub struct Registry<T> {
    live: LazyLock<Mutex<HashSet<usize>>>,
    _marker: std::marker::PhantomData<fn() -> T>,
}

impl<T> Default for Registry<T> {
    fn default() -> Self {
        Self::new()
    }
}

impl<T> Registry<T> {
    pub const fn new() -> Self {
        Registry {
            live: LazyLock::new(|| Mutex::new(HashSet::new())),
            _marker: std::marker::PhantomData,
        }
    }

    fn lock(&self) -> MutexGuard<'_, HashSet<usize>> {
        // The registry's own operations cannot panic midway; a poisoned lock is still consistent.
        self.live.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Registers `value` and returns its handle (never 0).
    pub fn insert(&self, value: Arc<T>) -> jlong {
        let ptr = Box::into_raw(Box::new(value));
        self.lock().insert(ptr as usize);
        ptr as jlong
    }

    /// The object behind `handle`, if it is registered.
    pub fn get(&self, handle: jlong) -> BridgeResult<Arc<T>> {
        let live = self.lock();
        if handle == 0 || !live.contains(&(handle as usize)) {
            return Err(BridgeError::InvalidHandle(handle));
        }
        // SAFETY: the pointer came from `Box::into_raw` in `insert` and is still registered;
        // `remove` unregisters under this same lock before freeing, so it is alive here.
        let arc = unsafe { &*(handle as usize as *const Arc<T>) };
        Ok(Arc::clone(arc))
    }

    /// Unregisters `handle` and returns its object; `None` if it was not registered.
    pub fn remove(&self, handle: jlong) -> Option<Arc<T>> {
        let mut live = self.lock();
        if handle == 0 || !live.remove(&(handle as usize)) {
            return None;
        }
        drop(live);
        // SAFETY: the pointer came from `Box::into_raw` and was registered until the line above;
        // only the caller that removed it from the set reaches this point, exactly once.
        let boxed = unsafe { Box::from_raw(handle as usize as *mut Arc<T>) };
        Some(*boxed)
    }

    /// Unregisters every handle and returns their objects (library unload).
    pub fn drain(&self) -> Vec<Arc<T>> {
        let handles: Vec<usize> = self.lock().drain().collect();
        handles
            .into_iter()
            .map(|ptr| {
                // SAFETY: each pointer came from `Box::into_raw` in `insert` and was registered
                // until the drain above removed it, under the lock, exactly once.
                *unsafe { Box::from_raw(ptr as *mut Arc<T>) }
            })
            .collect()
    }

    /// Number of live handles (for tests and leak checks).
    pub fn len(&self) -> usize {
        self.lock().len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lookup_insert_remove() {
        let reg: Registry<String> = Registry::new();
        let h = reg.insert(Arc::new("a".to_string()));
        assert_ne!(h, 0);
        assert_eq!(*reg.get(h).unwrap(), "a");
        let held = reg.get(h).unwrap();
        let removed = reg.remove(h).unwrap();
        assert_eq!(*removed, "a");
        assert_eq!(
            *held, "a",
            "a running call keeps its object alive after close"
        );
        assert!(matches!(reg.get(h), Err(BridgeError::InvalidHandle(_))));
        assert!(reg.remove(h).is_none(), "second removal is a no-op");
        assert!(reg.is_empty());
    }

    #[test]
    fn drain_empties_the_registry() {
        let reg: Registry<u32> = Registry::new();
        let a = reg.insert(Arc::new(1));
        reg.insert(Arc::new(2));
        let mut all: Vec<u32> = reg.drain().iter().map(|v| **v).collect();
        all.sort();
        assert_eq!(all, vec![1, 2]);
        assert!(reg.is_empty());
        assert!(reg.get(a).is_err());
    }

    #[test]
    fn garbage_handles_are_refused_without_dereferencing() {
        let reg: Registry<u64> = Registry::new();
        for h in [0, 1, -1, 0x1234_5678, i64::MIN, i64::MAX] {
            assert!(matches!(reg.get(h), Err(BridgeError::InvalidHandle(_))));
            assert!(reg.remove(h).is_none());
        }
    }

    #[test]
    fn concurrent_get_and_remove() {
        let reg: Arc<Registry<Vec<u8>>> = Arc::new(Registry::new());
        for _ in 0..100 {
            let h = reg.insert(Arc::new(vec![1, 2, 3]));
            let r2 = Arc::clone(&reg);
            let t = std::thread::spawn(move || {
                for _ in 0..100 {
                    if let Ok(v) = r2.get(h) {
                        assert_eq!(v.len(), 3);
                    }
                }
            });
            reg.remove(h);
            t.join().unwrap();
        }
        assert!(reg.is_empty());
    }
}
