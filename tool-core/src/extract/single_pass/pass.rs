//! What the single pass shares over one extraction (the definition, the warnings), its
//! conversions of a value met in the wrong form, and where a value is (its steps up to its
//! parameter).

use std::borrow::Cow;
use std::cell::{Cell, RefCell};

use serde_json::Value;

use super::pointer_sink::{NoPointer, PointerSink};
use crate::extract::compiled::CompiledSchema;
use crate::extract::convert::{self, Scalar, Token};
use crate::extract::keys::{folded_name, unknown_key};
use crate::model::rules;
use crate::model::ParseWarning;
use crate::model::ToolDefinition;
use crate::schema::plan::{NodeId, Plan};

/// What the single pass shares over one extraction: the definition it converts by, and the
/// warnings for what it converted.
#[doc(hidden)]
pub struct Pass<'c> {
    definition: &'c ToolDefinition,
    compiled: &'c CompiledSchema,
    strict: bool,
    warnings: RefCell<Vec<ParseWarning>>,
    /// How many of the warnings are about unknown keys.
    unknown: Cell<usize>,
}

impl<'c> Pass<'c> {
    pub(crate) fn new(definition: &'c ToolDefinition, compiled: &'c CompiledSchema, strict: bool) -> Self {
        Pass { definition, compiled, strict, warnings: RefCell::new(Vec::new()), unknown: Cell::new(0) }
    }

    fn plan(&self) -> &'c Plan {
        &self.compiled.plan
    }

    /// Whether the tool is read under the strict policy.
    pub(crate) fn strict(&self) -> bool {
        self.strict
    }

    /// Whether nothing was converted and no unknown key met.
    #[inline]
    pub(crate) fn noted_nothing(&self) -> bool {
        self.warnings.borrow().is_empty()
    }

    /// Forgets what was noted (the single pass starts again).
    pub(crate) fn forget(&self) {
        self.warnings.borrow_mut().clear();
        self.unknown.set(0);
    }

    /// The tool's declared parameters.
    pub(crate) fn parameters(&self) -> &'c [crate::model::ToolParameter] {
        &self.definition.parameters
    }

    /// Notes the warning about an unknown key.
    pub(crate) fn note_unknown(&self, warning: ParseWarning) {
        self.warnings.borrow_mut().push(warning);
        self.unknown.set(self.unknown.get() + 1);
    }

    /// The warnings, and how many of them are about unknown keys.
    pub(crate) fn into_warnings(self) -> (Vec<ParseWarning>, usize) {
        (self.warnings.into_inner(), self.unknown.get())
    }

    /// Converts `value`, met at `place` with the wrong kind, as the tree path would. `None` when
    /// the single pass must give up: the strict policy refused, or the conversion means
    /// "absent", which only the tree path can express inside an option.
    #[cold]
    #[inline(never)]
    pub(super) fn convert(&self, place: Place<'_>, value: Value) -> Option<Value> {
        if !place.is_known() {
            return None;
        }
        let mut pointer = String::with_capacity(POINTER_CAPACITY);
        let Some((node, only_indices)) = self.locate(place, &mut pointer) else { return Some(value) };
        self.convert_at((place.root().0, node, only_indices), pointer, value)
    }

    /// [`Pass::convert`], once the node (and `pointer`) of the value is known.
    fn convert_at(&self, (param, node, only_indices): Located, pointer: String, mut value: Value) -> Option<Value> {
        // Its node depends on a value beside it (a tagged enum's content, by its tag).
        if self.plan().node(node).deferred() {
            return convert::settled(self.plan(), node, &mut value).then_some(value);
        }
        let (strict, case_sensitive) = self.flags(param, only_indices);
        let plan = self.plan();
        let mut warnings = self.warnings.borrow_mut();
        let before = warnings.len();
        reserve_first(&mut warnings);
        let taken = std::mem::take(&mut *warnings);
        let converted = convert::convert_node(plan, node, pointer, &mut value, (strict, case_sensitive), taken);
        *warnings = converted.warnings;
        if !converted.refused.is_empty() || (value.is_null() && warnings.len() > before) {
            return None;
        }
        Some(value)
    }

    /// Converts the scalar `token`, met at `place` with the wrong kind, as the tree path would,
    /// without building a `Value` for it. `None` when the single pass must give up (as
    /// [`Pass::convert`]).
    #[cold]
    #[inline(never)]
    pub(super) fn convert_token(&self, place: Place<'_>, token: Token<'_>) -> Option<Became<'c>> {
        if !place.is_known() {
            return None;
        }
        // The warning's texts, its pointer first, in one string.
        let mut texts = String::with_capacity(POINTER_CAPACITY + token.texts_capacity());
        let Some((node, only_indices)) = self.locate(place, &mut texts) else { return Some(Became::Kept) };
        let param = place.root().0;
        let located = (param, node, only_indices);
        // A node that depends on a value beside it, or one that converts whole values (a list, an
        // object): the way of a whole value.
        if self.plan().node(node).deferred() {
            return self.convert_at(located, texts, token.to_value()).map(Became::Whole);
        }
        let (strict, case_sensitive) = self.flags(param, only_indices);
        let change = match convert::scalar_change(self.plan(), node, &token, case_sensitive) {
            Ok(Some(change)) => change,
            Ok(None) => return Some(Became::Kept),
            Err(convert::Composite) => {
                // JSON text holding the list or object declared there is read as the value it
                // holds; anything else converts as a whole value.
                let decoded = match token {
                    Token::Text(text) => convert::decodes(self.plan(), node, text).map(|expected| (text, expected)),
                    _ => None,
                };
                let Some((text, expected)) = decoded else {
                    return self.convert_at(located, texts, token.to_value()).map(Became::Whole);
                };
                if strict {
                    return None;
                }
                let splits = convert::write_decoded(text, &mut texts);
                self.push(ParseWarning::from_texts(texts, splits, rules::JSON_STRING_DECODED, Cow::Borrowed(expected)));
                return Some(Became::Decode);
            }
        };
        // Refused, or "absent", which only the tree path can express inside an option.
        if strict || matches!(change.new, Scalar::Null) {
            return None;
        }
        let splits = change.write(&token, &mut texts);
        self.push(ParseWarning::from_texts(texts, splits, change.rule, change.expected));
        Some(Became::Scalar(change.new))
    }

    /// Notes a conversion's warning.
    fn push(&self, warning: ParseWarning) {
        let mut warnings = self.warnings.borrow_mut();
        reserve_first(&mut warnings);
        warnings.push(warning);
    }

    /// The strict policy and the case sensitivity of enum tokens for a value under the parameter
    /// `param`. As in the tree, a parameter's case sensitivity reaches its list elements
    /// (`only_indices`), not the fields of objects inside it.
    fn flags(&self, param: usize, only_indices: bool) -> (bool, bool) {
        let parameter = &self.definition.parameters[param];
        let case_sensitive = only_indices && parameter.enum_constraint.as_ref().is_some_and(|e| e.case_sensitive);
        (self.strict || parameter.strict, case_sensitive)
    }

    /// Whether a value read without a type hint at `place` could need converting.
    #[cold]
    #[inline(never)]
    pub(super) fn converts(&self, place: Place<'_>) -> bool {
        // Where the path is not known, `convert` gives up, which leaves the call to the tree.
        if !place.is_known() {
            return true;
        }
        let mut pointer = String::new();
        self.locate(place, &mut pointer).is_some_and(|(node, _)| self.plan().node(node).converts())
    }

    /// The schema node of the value at `place`, where the tree's conversion descends to it,
    /// with its JSON pointer written to `pointer`; and whether the steps below the parameter
    /// are all list indices.
    fn locate(&self, place: Place<'_>, pointer: &mut impl PointerSink) -> Option<(NodeId, bool)> {
        let plan = self.plan();
        let (parent, segment) = match *place {
            Step::Param(param, _) => {
                let at = self.compiled.places.get(param)?;
                pointer.push_str(&at.pointer);
                return Some((at.node?, true));
            }
            Step::In(parent, segment) => (parent, segment),
        };
        let (parent, only_indices) = self.locate(parent, pointer)?;
        match segment {
            Segment::Key(key) => {
                let key = key?;
                pointer.push_segment(key);
                Some((plan.node(parent).field(key)?, false))
            }
            Segment::Index(index) => {
                pointer.push_str("/");
                pointer.push_str(itoa::Buffer::new().format(index));
                Some((plan.node(parent).element(index)?, only_indices))
            }
        }
    }

    /// Whether the type may drop the key `key` of the object at `parent` (a derived struct reads
    /// the value of a key it does not declare as ignored): when the schema declares the object's
    /// fields and none of them is the key, even but for case and separators, the key is noted
    /// as unknown, as the tree notes it. `false` leaves the call to the tree path: the key may
    /// be a field's name in another case, the policy is strict, or the place is not known.
    #[cold]
    #[inline(never)]
    pub(super) fn ignores(&self, parent: Place<'_>, key: Option<&str>) -> bool {
        let Some(key) = key else { return false };
        if !parent.is_known() {
            return false;
        }
        let mut pointer = String::with_capacity(POINTER_CAPACITY + key.len());
        let Some((node, only_indices)) = self.locate(parent, &mut pointer) else { return false };
        let Some(declared) = self.plan().node(node).closed_fields() else { return false };
        let strict = self.flags(parent.root().0, only_indices).0;
        if strict || declared.contains(&key) || folded_name(key, declared.iter().copied()).is_some() {
            return false;
        }
        PointerSink::push_segment(&mut pointer, key);
        self.push(unknown_key(&pointer, key, &declared, "fields"));
        true
    }

    /// Whether the schema declares the fields of the object at `place` (see
    /// [`crate::schema::plan::Node::closed_fields`]): a type that reads it as a map
    /// (`#[serde(flatten)]`) would drop the keys it does not know without a word.
    #[inline]
    pub(super) fn declares_fields(&self, place: Place<'_>) -> bool {
        place.is_known() && self.locate(place, &mut NoPointer).is_some_and(|(node, _)| self.plan().node(node).closed())
    }
}

/// A value's parameter, its schema node, and whether the steps below the parameter are all list
/// indices (see [`Pass::flags`]).
type Located = (usize, NodeId, bool);

/// The warnings' first allocation, straight away: cheaper than the first push growing it.
fn reserve_first(warnings: &mut Vec<ParseWarning>) {
    if warnings.capacity() == 0 {
        *warnings = Vec::with_capacity(4);
    }
}

/// Room for a JSON pointer, in the string a warning's texts are written to.
const POINTER_CAPACITY: usize = 32;

/// What a scalar met with the wrong kind became.
pub(super) enum Became<'c> {
    /// Nothing converts it: the type decides.
    Kept,
    /// A scalar again.
    Scalar(Scalar<'c>),
    /// A list or an object (a scalar wrapped in a list, JSON text decoded).
    Whole(Value),
    /// JSON text holding the list or object the type asked for: read as the value it holds.
    Decode,
}

/// Where a value is: the steps up to its parameter (a linked list on the stack, so that going
/// down costs nothing until a conversion needs the path). One pointer: a reader passes it, with
/// the deserializer, in registers; the pass is found at the root when a conversion needs it.
pub(super) type Place<'p> = &'p Step<'p>;

/// A value's place: a parameter, or a step from its container's place.
#[derive(Clone, Copy)]
pub(super) enum Step<'p> {
    /// The value of the parameter at this index, read in this pass.
    Param(usize, &'p Pass<'p>),
    /// A value inside the container at the first place.
    In(Place<'p>, Segment<'p>),
}

impl<'p> Step<'p> {
    /// The parameter this place is under, and the pass it is read in.
    pub(super) fn root(&self) -> (usize, &'p Pass<'p>) {
        let mut step = *self;
        loop {
            match step {
                Step::Param(param, pass) => return (param, pass),
                Step::In(parent, _) => step = *parent,
            }
        }
    }

    pub(super) fn pass(&self) -> &'p Pass<'p> {
        self.root().1
    }

    /// Whether every key on the way is known (see [`Segment::Key`]).
    pub(super) fn is_known(&self) -> bool {
        let mut step = *self;
        loop {
            match step {
                Step::Param(..) => return true,
                Step::In(_, Segment::Key(None)) => return false,
                Step::In(parent, _) => step = *parent,
            }
        }
    }
}

/// One step from a container's value to a value inside it (`Copy`: overwriting it costs
/// nothing more than the store).
#[derive(Clone, Copy)]
pub(super) enum Segment<'a> {
    /// A field of an object, a map's key, or an enum variant's name; `None` when serde_json
    /// handed the key over unborrowed (an escaped key, a number key). A conversion below such a
    /// key is left to the tree path.
    Key(Option<&'a str>),
    /// An element of a list.
    Index(usize),
}
