//! Ways past a native library's own memory checks. `ndarray.resize(..., refcheck=False)` frees
//! the buffer other arrays still view: through such a view the snippet reads and writes memory
//! the interpreter reuses for its own objects, and from there can undo anything done
//! in-process. An array of objects over bytes the snippet wrote (`np.ndarray((1,),
//! dtype=object, buffer=...)`, a record array with an object field) turns any number into an
//! object reference: a forged object at any address. scipy's objects check the arrays they
//! are built from once, and their native code trusts whatever arrays they hold afterwards
//! (`m.data = np.zeros(1)`, `m.col[:] = ...`, `spline.c = ...`: reads past the arrays' ends).
//! `copy.deepcopy`'s `memo` answers which copy stands for each part of what it copies: a
//! snippet's mapping puts any object (index arrays out of range) inside a scipy object rebuilt
//! with no constructor's check.
//! So `refcheck=` is allowed only as `True` (and a `resize` given a `**` mapping may carry
//! it), an array over a buffer only with a dtype proven to hold no objects, `deepcopy` only
//! without a memo (and these functions only called where that is judged, never handed on as
//! a base, an argument or a value), and a scipy object's attributes are not written (build a
//! new one instead).

use crate::analysis::engine::Engine;
use crate::analysis::engine::meaning::Value;
use crate::analysis::facts::DynamicKind;
use crate::analysis::ir::{ConstKind, Kind, NodeId, Splat};

pub fn report(e: &mut Engine, call: NodeId) {
    let Kind::Call { callee, .. } = e.ir.kind(call) else {
        return;
    };
    report_arrays_over_bytes(e, call, callee);
    report_copy_memo(e, call, callee);
    if let Some(value) = e.keyword_arg(call, "refcheck")
        && !matches!(e.ir.kind(e.ir.unparen(value)), Kind::Const(ConstKind::True))
    {
        switched_off(e, value);
        return;
    }
    let resize = match e.ir.kind(callee) {
        Kind::Attr { name, .. } => e.name(name) == "resize",
        _ => false,
    };
    let Kind::Call { args, .. } = e.ir.kind(call) else {
        return;
    };
    let mapping = e.ir.list(args).iter().any(|&arg| {
        matches!(
            e.ir.kind(arg),
            Kind::Arg {
                splat: Splat::Keywords,
                ..
            }
        )
    });
    if resize && mapping {
        switched_off(e, call);
    }
}

fn switched_off(e: &mut Engine, at: NodeId) {
    e.dynamic(
        at,
        DynamicKind::Introspection,
        "`refcheck=` other than True lets `resize` free memory other arrays still view (reads \
         and writes of freed memory): leave it out, or copy with `np.resize(a, shape)`",
    );
}

/// Constructors that view bytes the caller gives as an array: the bytes argument (position and
/// keyword) and the dtype's (keywords that may also give it, record arrays' `formats`).
const OVER_BYTES: &[(&str, usize, &str, usize, &[&str])] = &[
    ("numpy.ndarray", 2, "buffer", 1, &["dtype"]),
    ("numpy.memmap", 0, "filename", 1, &["dtype"]),
    ("numpy.recarray", 2, "buf", 1, &["dtype", "formats"]),
    (
        "numpy.rec.fromstring",
        0,
        "datastring",
        1,
        &["dtype", "formats"],
    ),
    ("numpy.rec.fromfile", 0, "fd", 1, &["dtype", "formats"]),
    ("numpy.rec.array", 0, "obj", 1, &["dtype", "formats"]),
    (
        "numpy.core.records.fromstring",
        0,
        "datastring",
        1,
        &["dtype", "formats"],
    ),
    (
        "numpy.core.records.fromfile",
        0,
        "fd",
        1,
        &["dtype", "formats"],
    ),
    (
        "numpy.core.records.array",
        0,
        "obj",
        1,
        &["dtype", "formats"],
    ),
];

fn report_arrays_over_bytes(e: &mut Engine, call: NodeId, callee: NodeId) {
    let mut names = e.names_of(callee);
    names.extend(base_names(e, callee, 0));
    for &(name, at, keyword, dtype_at, dtype_keywords) in OVER_BYTES {
        // Behind `*`/`**` the bytes may be there whether or not a position shows them.
        if !names.iter().any(|n| n == name)
            || e.arg(call, at, keyword).is_none() && !e.splatted(call)
        {
            continue;
        }
        let mut dtypes: Vec<NodeId> = e
            .positional_args(call)
            .get(dtype_at)
            .copied()
            .into_iter()
            .collect();
        dtypes.extend(dtype_keywords.iter().filter_map(|k| e.keyword_arg(call, k)));
        if e.splatted(call) || !dtypes.into_iter().all(|d| holds_no_objects(e, d)) {
            e.dynamic(
                call,
                DynamicKind::Introspection,
                "an array over given bytes with a dtype that may hold objects makes any number an \
                 object reference: give a numeric dtype (`np.uint8`, \"float64\")",
            );
        }
    }
}

/// The names of the library classes a class of the snippet's derives from (`class
/// Cells(np.ndarray)`: constructing `Cells` runs `numpy.ndarray`'s constructor).
fn base_names(e: &mut Engine, class: NodeId, depth: usize) -> Vec<String> {
    if depth > 3 {
        return Vec::new();
    }
    let classes: Vec<NodeId> = e
        .resolve(class, 0)
        .iter()
        .filter_map(|m| match m.value {
            Value::Local(node) if matches!(e.ir.kind(node), Kind::Class { .. }) => Some(node),
            _ => None,
        })
        .collect();
    let mut names = Vec::new();
    for class in classes {
        let bases: Vec<NodeId> = (0..e.ir.nodes.len() as NodeId)
            .filter(|&id| e.ir.parent(id) == Some(class))
            .filter_map(|id| match e.ir.kind(id) {
                Kind::Arg {
                    name: None, value, ..
                } => Some(value),
                _ => None,
            })
            .collect();
        for base in bases {
            names.extend(e.names_of(base));
            names.extend(base_names(e, base, depth + 1));
        }
    }
    names
}

/// numpy's scalar types that hold numbers, booleans, text or times, never objects.
const NUMERIC_TYPES: &[&str] = &[
    "bool",
    "bool_",
    "int8",
    "int16",
    "int32",
    "int64",
    "uint8",
    "uint16",
    "uint32",
    "uint64",
    "intp",
    "uintp",
    "int_",
    "uint",
    "intc",
    "uintc",
    "byte",
    "ubyte",
    "short",
    "ushort",
    "longlong",
    "ulonglong",
    "float16",
    "float32",
    "float64",
    "half",
    "single",
    "double",
    "longdouble",
    "complex64",
    "complex128",
    "csingle",
    "cdouble",
    "clongdouble",
    "str_",
    "bytes_",
    "datetime64",
    "timedelta64",
];

/// A dtype proven to hold no Python objects: a type code or spec without `O`, one of numpy's
/// scalar types of numbers, text or times, a numeric builtin, or a structured dtype written
/// out of those.
fn holds_no_objects(e: &mut Engine, dtype: NodeId) -> bool {
    if let Some(text) = e.fold(dtype, 0) {
        return !text.contains('O') && !text.contains("object");
    }
    // A structured dtype written out: `[("b", "S8"), ("n", np.int32)]`, every part proven.
    if let Kind::Collection { items, .. } = e.ir.kind(e.ir.unparen(dtype)) {
        let items = e.ir.list(items).to_vec();
        return items.into_iter().all(|item| holds_no_objects(e, item));
    }
    let names = e.names_of(dtype);
    !names.is_empty()
        && names.iter().all(|n| {
            matches!(n.as_str(), "int" | "float" | "bool" | "complex")
                || n.strip_prefix("numpy.")
                    .is_some_and(|t| NUMERIC_TYPES.contains(&t))
        })
}

/// `obj.attr = v`, `obj.attr[i] = v`, `obj.attr += v` where `obj` is what a scipy function or
/// class made (`sparse.csr_matrix(...)`, `sparse.eye(3)`, `BSpline(...)`): the arrays it holds
/// are what its native code trusts.
pub fn report_store(e: &mut Engine, statement: NodeId) {
    let targets: Vec<NodeId> = match e.ir.kind(statement) {
        Kind::Assign { targets, .. } => e.ir.list(targets).to_vec(),
        Kind::AugAssign { target, .. } => vec![target],
        _ => return,
    };
    for target in targets {
        let mut attr = e.ir.unparen(target);
        while let Kind::Index { object, .. } = e.ir.kind(attr) {
            attr = e.ir.unparen(object);
        }
        let Kind::Attr { object, .. } = e.ir.kind(attr) else {
            continue;
        };
        if super::expressions::is_made_by(e, object, &["scipy."], false) {
            e.dynamic(
                target,
                DynamicKind::Introspection,
                "a scipy object's arrays are what its native code trusts, checked once when it \
                 was built: build a new object instead of changing one",
            );
        }
    }
}

/// `copy.deepcopy(x, memo)`, by position, keyword or splat.
fn report_copy_memo(e: &mut Engine, call: NodeId, callee: NodeId) {
    if !e.names_of(callee).iter().any(|n| n == COPY) {
        return;
    }
    let Kind::Call { args, .. } = e.ir.kind(call) else {
        return;
    };
    let splat = e.ir.list(args).iter().any(|&arg| {
        !matches!(
            e.ir.kind(arg),
            Kind::Arg {
                splat: Splat::None,
                ..
            }
        )
    });
    if splat || e.positional_args(call).len() > 1 || e.keyword_arg(call, "memo").is_some() {
        e.dynamic(
            call,
            DynamicKind::Introspection,
            "`deepcopy`'s memo chooses the object that stands for each part of what it copies, \
             rebuilt past its constructor's checks: copy without one",
        );
    }
}

const COPY: &str = "copy.deepcopy";

/// A function judged only where it is called directly, and what a call out of sight may do:
/// the array classes over bytes (`np.ndarray`, `np.recarray`, `np.memmap`, the record
/// constructors) and `deepcopy`.
fn judged_when_called(name: &str) -> Option<&'static str> {
    if name == COPY {
        Some("be given a memo")
    } else if OVER_BYTES.iter().any(|&(class, ..)| class == name) {
        Some("view written bytes as objects")
    } else {
        None
    }
}

/// A function judged only where it is called directly (see `judged_when_called`) anywhere
/// but called, tested (`isinstance`, `issubclass`, compared), read an attribute of, or
/// written as a type: handed to `partial`, `map` or a class's bases (`class
/// Cells(np.ndarray)`, `type(name, (np.ndarray,), {})`), its later calls are out of sight.
pub fn report_array_class_value(e: &mut Engine, id: NodeId) {
    let names = e.names_of(id);
    let Some((name, risk)) = names
        .iter()
        .find_map(|n| judged_when_called(n).map(|risk| (n.clone(), risk)))
    else {
        return;
    };
    // Through tuples and parentheses (`isinstance(x, (np.ndarray, list))`, `dict[str,
    // np.ndarray]`) to where the class goes.
    let mut child = id;
    let parent = loop {
        let Some(parent) = e.ir.parent(child) else {
            return;
        };
        if !matches!(e.ir.kind(parent), Kind::Collection { .. } | Kind::Paren(_)) {
            break parent;
        }
        child = parent;
    };
    let tests_it = |e: &mut Engine, arg: NodeId| {
        e.ir.parent(arg).is_some_and(|call| match e.ir.kind(call) {
            Kind::Call { callee, .. } => e
                .names_of(callee)
                .iter()
                .any(|n| matches!(n.as_str(), "isinstance" | "issubclass")),
            _ => false,
        })
    };
    let inert = match e.ir.kind(parent) {
        Kind::Call { callee, .. } => callee == child,
        Kind::Attr { object, .. } => object == child,
        // a type's parameter: `Optional[np.ndarray]`
        Kind::Index { key, .. } => key == child,
        Kind::Binary { .. } | Kind::Compared | Kind::Annotation => true,
        Kind::Arg { .. } => tests_it(e, parent),
        _ => false,
    };
    if !inert {
        e.dynamic(
            id,
            DynamicKind::UntrackedValue,
            format!(
                "`{name}` is handed on (a base class, an argument, a value): its later calls \
                 may {risk}; call it directly"
            ),
        );
    }
}
