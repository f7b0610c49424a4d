//! A tool's wire parameters as one value: [`WireArgs`], implemented for tuples of
//! parameters and for [`Wide`], read by the object scan, the single pass and the tree path.

use schemars::{Schema, SchemaGenerator};
use serde::de::MapAccess;
use serde_json::{Map, Value};

use super::keys::Key;
use super::param::{accepts_missing, fill_missing, read_element, store, ToolParam};
use super::scan::{ObjectScan, Stop};
use super::single_pass::Pass;
use crate::model::{ArgumentError, ToolParameter};

/// The wire parameters of one tool, as a tuple, read in one pass.
///
/// Implemented for tuples of up to 16 [`ToolParam`]s and for [`Wide`], which joins two of
/// them: `#[tool]` declares a tool of more parameters as a tree of `Wide`s over tuples of 16.
/// Its items, but for [`WIDTH`](WireArgs::WIDTH), are the macro's contract with the runtime:
/// hidden, and not meant to be used directly.
pub trait WireArgs: Sized + Send + 'static {
    /// Per parameter, the function producing its declared default, if any.
    #[doc(hidden)]
    type Defaults: Copy + Send + Sync + 'static;

    /// How many parameters.
    const WIDTH: usize;

    /// Per parameter, the value read so far (`Option<T>`), while the arguments are read.
    #[doc(hidden)]
    type Slots;

    /// The JSON Schema of each parameter, in order (references land in `generator`).
    #[doc(hidden)]
    fn element_schemas(generator: &mut SchemaGenerator) -> Vec<Schema>;

    /// Per parameter, whether its type accepts being absent (`Option<T>`).
    #[doc(hidden)]
    fn accepts_missing() -> Vec<bool>;

    /// Per parameter, whether a default is declared.
    #[doc(hidden)]
    fn has_default(defaults: &Self::Defaults) -> Vec<bool>;

    /// No parameter read yet.
    #[doc(hidden)]
    fn empty() -> Self::Slots;

    /// The single pass: reads the value of the parameter at `key` (counted from this tuple's
    /// first, which is the tool's parameter `first`) from `map` into its slot. `Ok(false)` when
    /// `key` is beyond this tuple (the value is not read).
    #[doc(hidden)]
    fn store<'de, M: MapAccess<'de>>(
        slots: &mut Self::Slots,
        key: Key,
        first: usize,
        map: &mut M,
        pass: &Pass<'_>,
    ) -> Result<bool, M::Error>;

    /// The object scan (`scan.rs`): reads the value of the parameter at `key` (as in
    /// [`WireArgs::store`]) into its slot; `Stop::Unread` when `key` is beyond this tuple.
    #[doc(hidden)]
    fn scan_value(
        slots: &mut Self::Slots,
        key: Key,
        first: usize,
        scan: &mut ObjectScan<'_>,
        pass: &Pass<'_>,
    ) -> Result<(), Stop>;

    /// The values once every key is read, with the defaults of the parameters not sent; `None`
    /// when a required parameter is missing.
    #[doc(hidden)]
    fn fill(slots: Self::Slots, defaults: &Self::Defaults) -> Option<Self>;

    /// The tree path: reads the parameters (`parameters`, this tuple's first first) from a JSON
    /// object, pushing an error for each that cannot be read; `None` when any could not.
    #[doc(hidden)]
    fn read_object(
        object: &Map<String, Value>,
        parameters: &[ToolParameter],
        defaults: &Self::Defaults,
        errors: &mut Vec<ArgumentError>,
    ) -> Option<Self>;
}

/// The wire parameters of a tool with more than 16: the first ones and the rest, each a tuple
/// or another `Wide` (`#[tool]` builds the tree, with tuples of 16 parameters).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct Wide<Front, Back>(pub Front, pub Back);

impl<F: WireArgs, B: WireArgs> WireArgs for Wide<F, B> {
    type Defaults = (F::Defaults, B::Defaults);
    const WIDTH: usize = F::WIDTH + B::WIDTH;
    type Slots = (F::Slots, B::Slots);

    fn element_schemas(generator: &mut SchemaGenerator) -> Vec<Schema> {
        let mut schemas = F::element_schemas(generator);
        schemas.extend(B::element_schemas(generator));
        schemas
    }

    fn accepts_missing() -> Vec<bool> {
        let mut accepts = F::accepts_missing();
        accepts.extend(B::accepts_missing());
        accepts
    }

    fn has_default(defaults: &Self::Defaults) -> Vec<bool> {
        let mut has = F::has_default(&defaults.0);
        has.extend(B::has_default(&defaults.1));
        has
    }

    #[inline(always)]
    fn empty() -> Self::Slots {
        (F::empty(), B::empty())
    }

    #[inline(always)]
    fn store<'de, M: MapAccess<'de>>(
        slots: &mut Self::Slots,
        key: Key,
        first: usize,
        map: &mut M,
        pass: &Pass<'_>,
    ) -> Result<bool, M::Error> {
        if key < F::WIDTH {
            F::store(&mut slots.0, key, first, map, pass)
        } else {
            B::store(&mut slots.1, key - F::WIDTH, first + F::WIDTH, map, pass)
        }
    }

    #[inline(always)]
    fn scan_value(
        slots: &mut Self::Slots,
        key: Key,
        first: usize,
        scan: &mut ObjectScan<'_>,
        pass: &Pass<'_>,
    ) -> Result<(), Stop> {
        if key < F::WIDTH {
            F::scan_value(&mut slots.0, key, first, scan, pass)
        } else {
            B::scan_value(&mut slots.1, key - F::WIDTH, first + F::WIDTH, scan, pass)
        }
    }

    #[inline(always)]
    fn fill(slots: Self::Slots, defaults: &Self::Defaults) -> Option<Self> {
        let front = F::fill(slots.0, &defaults.0)?;
        Some(Wide(front, B::fill(slots.1, &defaults.1)?))
    }

    fn read_object(
        object: &Map<String, Value>,
        parameters: &[ToolParameter],
        defaults: &Self::Defaults,
        errors: &mut Vec<ArgumentError>,
    ) -> Option<Self> {
        // Both halves, so that every problem is reported.
        let front = F::read_object(object, parameters, &defaults.0, errors);
        let back = B::read_object(object, parameters.get(F::WIDTH..).unwrap_or_default(), &defaults.1, errors);
        Some(Wide(front?, back?))
    }
}

macro_rules! wire_args {
    ($(($idx:tt, $T:ident, $v:ident)),*) => {
        impl<$($T: ToolParam),*> WireArgs for ($($T,)*) {
            type Defaults = ($(Option<fn() -> $T>,)*);
            const WIDTH: usize = {
                let indices: &[usize] = &[$($idx),*];
                indices.len()
            };
            type Slots = ($(Option<$T>,)*);

            fn element_schemas(_generator: &mut SchemaGenerator) -> Vec<Schema> {
                vec![$(_generator.subschema_for::<$T>()),*]
            }

            fn accepts_missing() -> Vec<bool> {
                vec![$(accepts_missing::<$T>()),*]
            }

            fn has_default(_defaults: &Self::Defaults) -> Vec<bool> {
                vec![$(_defaults.$idx.is_some()),*]
            }

            #[inline(always)]
            #[allow(clippy::unused_unit)]
            fn empty() -> Self::Slots {
                ($(None::<$T>,)*)
            }

            #[inline(always)]
            fn store<'de, M: MapAccess<'de>>(
                _slots: &mut Self::Slots,
                key: Key,
                _first: usize,
                _map: &mut M,
                _pass: &Pass<'_>,
            ) -> Result<bool, M::Error> {
                match key {
                    $($idx => store(&mut _slots.$idx, _map, _first + $idx, _pass).map(|()| true),)*
                    _ => Ok(false),
                }
            }

            #[inline(always)]
            fn scan_value(
                _slots: &mut Self::Slots,
                key: Key,
                _first: usize,
                _scan: &mut ObjectScan<'_>,
                _pass: &Pass<'_>,
            ) -> Result<(), Stop> {
                match key {
                    $($idx => _scan.value(&mut _slots.$idx, _first + $idx, _pass),)*
                    // Beyond the tuple (`names` too long): the single pass skips it.
                    _ => Err(Stop::Unread),
                }
            }

            #[inline(always)]
            fn fill(slots: Self::Slots, _defaults: &Self::Defaults) -> Option<Self> {
                let ($($v,)*) = slots;
                // One match at the end, not a `?` per parameter: each early return would drop
                // the values before it, code growing with the square of the width.
                match ($(fill_missing($v, _defaults.$idx),)*) {
                    ($(Some($v),)*) => Some(($($v,)*)),
                    #[allow(unreachable_patterns)]
                    _ => None,
                }
            }

            fn read_object(
                _object: &Map<String, Value>,
                _parameters: &[ToolParameter],
                _defaults: &Self::Defaults,
                _errors: &mut Vec<ArgumentError>,
            ) -> Option<Self> {
                $(let $v = read_element::<$T>(_object, &_parameters[$idx], _defaults.$idx, _errors);)*
                // One match, not a `?` per parameter (see `fill`).
                match ($($v,)*) {
                    ($(Some($v),)*) => Some(($($v,)*)),
                    #[allow(unreachable_patterns)]
                    _ => None,
                }
            }
        }
    };
}

/// Implements `WireArgs` for every prefix of the list: `()`, `(A0,)`, `(A0, A1)`, ...
macro_rules! wire_args_upto {
    ([$($done:tt),*]) => { wire_args!($($done),*); };
    ([$($done:tt),*] $next:tt $(, $rest:tt)*) => {
        wire_args!($($done),*);
        wire_args_upto!([$($done,)* $next] $($rest),*);
    };
}

wire_args_upto!(
    [](0, A0, a0),
    (1, A1, a1),
    (2, A2, a2),
    (3, A3, a3),
    (4, A4, a4),
    (5, A5, a5),
    (6, A6, a6),
    (7, A7, a7),
    (8, A8, a8),
    (9, A9, a9),
    (10, A10, a10),
    (11, A11, a11),
    (12, A12, a12),
    (13, A13, a13),
    (14, A14, a14),
    (15, A15, a15)
);
