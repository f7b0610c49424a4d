//! Tools of any width: 17, 40, 100 and 300 parameters, in both forms, are declared, read
//! (clean and messy arguments, any key order, defaults, missing parameters) and run with every
//! value in its place. Past 16 parameters `#[tool]` declares the arguments as a tree of `Wide`
//! over tuples; past 255 a parameter's position no longer fits in a byte.

use serde_json::{json, Value};
use tool_core::extract::Wide;
use tool_core::prelude::*;
use tool_core::CallStatus;

/// Takes seventeen parameters.
#[tool]
#[allow(clippy::too_many_arguments)]
fn wide17(
    /// Parameter `p01`.
    p01: u32,
    /// Parameter `p02`.
    p02: u32,
    /// Parameter `p03`.
    p03: u32,
    /// Parameter `p04`.
    p04: u32,
    /// Parameter `p05`.
    p05: u32,
    /// Parameter `p06`.
    p06: u32,
    /// Parameter `p07`.
    p07: u32,
    /// Parameter `p08`.
    p08: u32,
    /// Parameter `p09`.
    p09: u32,
    /// Parameter `p10`.
    p10: u32,
    /// Parameter `p11`.
    p11: u32,
    /// Parameter `p12`.
    p12: u32,
    /// Parameter `p13`.
    p13: u32,
    /// Parameter `p14`.
    p14: u32,
    /// Parameter `p15`.
    p15: u32,
    /// Parameter `p16`.
    p16: u32,
    /// Parameter `p17`.
    p17: Option<String>,
) -> String {
    format!("p01={p01:?} p02={p02:?} p03={p03:?} p04={p04:?} p05={p05:?} p06={p06:?} p07={p07:?} p08={p08:?} p09={p09:?} p10={p10:?} p11={p11:?} p12={p12:?} p13={p13:?} p14={p14:?} p15={p15:?} p16={p16:?} p17={p17:?}")
}

/// Takes forty parameters of every basic type, some with defaults.
#[tool]
#[allow(clippy::too_many_arguments)]
fn wide40(
    /// Parameter `q01`.
    q01: String,
    /// Parameter `q02`.
    q02: Option<u32>,
    /// Parameter `q03`.
    q03: bool,
    /// Parameter `q04`.
    q04: f64,
    /// Parameter `q05`.
    q05: Vec<String>,
    /// Parameter `q06`.
    q06: String,
    /// Parameter `q07`.
    q07: Option<u32>,
    /// Parameter `q08`.
    #[param(default = 7)]
    q08: u64,
    /// Parameter `q09`.
    q09: f64,
    /// Parameter `q10`.
    q10: Vec<String>,
    /// Parameter `q11`.
    q11: String,
    /// Parameter `q12`.
    q12: Option<u32>,
    /// Parameter `q13`.
    q13: bool,
    /// Parameter `q14`.
    q14: f64,
    /// Parameter `q15`.
    q15: Vec<String>,
    /// Parameter `q16`.
    #[param(default = 7)]
    q16: u64,
    /// Parameter `q17`.
    q17: Option<u32>,
    /// Parameter `q18`.
    q18: bool,
    /// Parameter `q19`.
    q19: f64,
    /// Parameter `q20`.
    q20: Vec<String>,
    /// Parameter `q21`.
    q21: String,
    /// Parameter `q22`.
    q22: Option<u32>,
    /// Parameter `q23`.
    q23: bool,
    /// Parameter `q24`.
    #[param(default = 7)]
    q24: u64,
    /// Parameter `q25`.
    q25: Vec<String>,
    /// Parameter `q26`.
    q26: String,
    /// Parameter `q27`.
    q27: Option<u32>,
    /// Parameter `q28`.
    q28: bool,
    /// Parameter `q29`.
    q29: f64,
    /// Parameter `q30`.
    q30: Vec<String>,
    /// Parameter `q31`.
    q31: String,
    /// Parameter `q32`.
    #[param(default = 7)]
    q32: u64,
    /// Parameter `q33`.
    q33: bool,
    /// Parameter `q34`.
    q34: f64,
    /// Parameter `q35`.
    q35: Vec<String>,
    /// Parameter `q36`.
    q36: String,
    /// Parameter `q37`.
    q37: Option<u32>,
    /// Parameter `q38`.
    q38: bool,
    /// Parameter `q39`.
    q39: f64,
    /// Parameter `q40`.
    #[param(default = 7)]
    q40: u64,
) -> String {
    format!("q01={q01:?} q02={q02:?} q03={q03:?} q04={q04:?} q05={q05:?} q06={q06:?} q07={q07:?} q08={q08:?} q09={q09:?} q10={q10:?} q11={q11:?} q12={q12:?} q13={q13:?} q14={q14:?} q15={q15:?} q16={q16:?} q17={q17:?} q18={q18:?} q19={q19:?} q20={q20:?} q21={q21:?} q22={q22:?} q23={q23:?} q24={q24:?} q25={q25:?} q26={q26:?} q27={q27:?} q28={q28:?} q29={q29:?} q30={q30:?} q31={q31:?} q32={q32:?} q33={q33:?} q34={q34:?} q35={q35:?} q36={q36:?} q37={q37:?} q38={q38:?} q39={q39:?} q40={q40:?}")
}

/// Takes a hundred parameters; every tenth is optional.
#[tool]
#[derive(Debug)]
#[allow(dead_code)] // read through `Debug`, which the lint does not count
struct Wide100 {
    /// Field 1.
    f001: u32,
    /// Field 2.
    f002: u32,
    /// Field 3.
    f003: u32,
    /// Field 4.
    f004: u32,
    /// Field 5.
    f005: u32,
    /// Field 6.
    f006: u32,
    /// Field 7.
    f007: u32,
    /// Field 8.
    f008: u32,
    /// Field 9.
    f009: u32,
    /// Field 10.
    f010: Option<u32>,
    /// Field 11.
    f011: u32,
    /// Field 12.
    f012: u32,
    /// Field 13.
    f013: u32,
    /// Field 14.
    f014: u32,
    /// Field 15.
    f015: u32,
    /// Field 16.
    f016: u32,
    /// Field 17.
    f017: u32,
    /// Field 18.
    f018: u32,
    /// Field 19.
    f019: u32,
    /// Field 20.
    f020: Option<u32>,
    /// Field 21.
    f021: u32,
    /// Field 22.
    f022: u32,
    /// Field 23.
    f023: u32,
    /// Field 24.
    f024: u32,
    /// Field 25.
    f025: u32,
    /// Field 26.
    f026: u32,
    /// Field 27.
    f027: u32,
    /// Field 28.
    f028: u32,
    /// Field 29.
    f029: u32,
    /// Field 30.
    f030: Option<u32>,
    /// Field 31.
    f031: u32,
    /// Field 32.
    f032: u32,
    /// Field 33.
    f033: u32,
    /// Field 34.
    f034: u32,
    /// Field 35.
    f035: u32,
    /// Field 36.
    f036: u32,
    /// Field 37.
    f037: u32,
    /// Field 38.
    f038: u32,
    /// Field 39.
    f039: u32,
    /// Field 40.
    f040: Option<u32>,
    /// Field 41.
    f041: u32,
    /// Field 42.
    f042: u32,
    /// Field 43.
    f043: u32,
    /// Field 44.
    f044: u32,
    /// Field 45.
    f045: u32,
    /// Field 46.
    f046: u32,
    /// Field 47.
    f047: u32,
    /// Field 48.
    f048: u32,
    /// Field 49.
    f049: u32,
    /// Field 50.
    f050: Option<u32>,
    /// Field 51.
    f051: u32,
    /// Field 52.
    f052: u32,
    /// Field 53.
    f053: u32,
    /// Field 54.
    f054: u32,
    /// Field 55.
    f055: u32,
    /// Field 56.
    f056: u32,
    /// Field 57.
    f057: u32,
    /// Field 58.
    f058: u32,
    /// Field 59.
    f059: u32,
    /// Field 60.
    f060: Option<u32>,
    /// Field 61.
    f061: u32,
    /// Field 62.
    f062: u32,
    /// Field 63.
    f063: u32,
    /// Field 64.
    f064: u32,
    /// Field 65.
    f065: u32,
    /// Field 66.
    f066: u32,
    /// Field 67.
    f067: u32,
    /// Field 68.
    f068: u32,
    /// Field 69.
    f069: u32,
    /// Field 70.
    f070: Option<u32>,
    /// Field 71.
    f071: u32,
    /// Field 72.
    f072: u32,
    /// Field 73.
    f073: u32,
    /// Field 74.
    f074: u32,
    /// Field 75.
    f075: u32,
    /// Field 76.
    f076: u32,
    /// Field 77.
    f077: u32,
    /// Field 78.
    f078: u32,
    /// Field 79.
    f079: u32,
    /// Field 80.
    f080: Option<u32>,
    /// Field 81.
    f081: u32,
    /// Field 82.
    f082: u32,
    /// Field 83.
    f083: u32,
    /// Field 84.
    f084: u32,
    /// Field 85.
    f085: u32,
    /// Field 86.
    f086: u32,
    /// Field 87.
    f087: u32,
    /// Field 88.
    f088: u32,
    /// Field 89.
    f089: u32,
    /// Field 90.
    f090: Option<u32>,
    /// Field 91.
    f091: u32,
    /// Field 92.
    f092: u32,
    /// Field 93.
    f093: u32,
    /// Field 94.
    f094: u32,
    /// Field 95.
    f095: u32,
    /// Field 96.
    f096: u32,
    /// Field 97.
    f097: u32,
    /// Field 98.
    f098: u32,
    /// Field 99.
    f099: u32,
    /// Field 100.
    f100: Option<u32>,
}

/// Takes three hundred parameters, more than a byte can number.
#[tool]
#[derive(Debug)]
#[allow(dead_code)] // read through `Debug`, which the lint does not count
struct Wide300 {
    /// Key 0.
    k000: u16,
    /// Key 1.
    k001: u16,
    /// Key 2.
    k002: u16,
    /// Key 3.
    k003: u16,
    /// Key 4.
    k004: u16,
    /// Key 5.
    k005: u16,
    /// Key 6.
    k006: u16,
    /// Key 7.
    k007: u16,
    /// Key 8.
    k008: u16,
    /// Key 9.
    k009: u16,
    /// Key 10.
    k010: u16,
    /// Key 11.
    k011: u16,
    /// Key 12.
    k012: u16,
    /// Key 13.
    k013: u16,
    /// Key 14.
    k014: u16,
    /// Key 15.
    k015: u16,
    /// Key 16.
    k016: u16,
    /// Key 17.
    k017: u16,
    /// Key 18.
    k018: u16,
    /// Key 19.
    k019: u16,
    /// Key 20.
    k020: u16,
    /// Key 21.
    k021: u16,
    /// Key 22.
    k022: u16,
    /// Key 23.
    k023: u16,
    /// Key 24.
    k024: u16,
    /// Key 25.
    k025: u16,
    /// Key 26.
    k026: u16,
    /// Key 27.
    k027: u16,
    /// Key 28.
    k028: u16,
    /// Key 29.
    k029: u16,
    /// Key 30.
    k030: u16,
    /// Key 31.
    k031: u16,
    /// Key 32.
    k032: u16,
    /// Key 33.
    k033: u16,
    /// Key 34.
    k034: u16,
    /// Key 35.
    k035: u16,
    /// Key 36.
    k036: u16,
    /// Key 37.
    k037: u16,
    /// Key 38.
    k038: u16,
    /// Key 39.
    k039: u16,
    /// Key 40.
    k040: u16,
    /// Key 41.
    k041: u16,
    /// Key 42.
    k042: u16,
    /// Key 43.
    k043: u16,
    /// Key 44.
    k044: u16,
    /// Key 45.
    k045: u16,
    /// Key 46.
    k046: u16,
    /// Key 47.
    k047: u16,
    /// Key 48.
    k048: u16,
    /// Key 49.
    k049: u16,
    /// Key 50.
    k050: u16,
    /// Key 51.
    k051: u16,
    /// Key 52.
    k052: u16,
    /// Key 53.
    k053: u16,
    /// Key 54.
    k054: u16,
    /// Key 55.
    k055: u16,
    /// Key 56.
    k056: u16,
    /// Key 57.
    k057: u16,
    /// Key 58.
    k058: u16,
    /// Key 59.
    k059: u16,
    /// Key 60.
    k060: u16,
    /// Key 61.
    k061: u16,
    /// Key 62.
    k062: u16,
    /// Key 63.
    k063: u16,
    /// Key 64.
    k064: u16,
    /// Key 65.
    k065: u16,
    /// Key 66.
    k066: u16,
    /// Key 67.
    k067: u16,
    /// Key 68.
    k068: u16,
    /// Key 69.
    k069: u16,
    /// Key 70.
    k070: u16,
    /// Key 71.
    k071: u16,
    /// Key 72.
    k072: u16,
    /// Key 73.
    k073: u16,
    /// Key 74.
    k074: u16,
    /// Key 75.
    k075: u16,
    /// Key 76.
    k076: u16,
    /// Key 77.
    k077: u16,
    /// Key 78.
    k078: u16,
    /// Key 79.
    k079: u16,
    /// Key 80.
    k080: u16,
    /// Key 81.
    k081: u16,
    /// Key 82.
    k082: u16,
    /// Key 83.
    k083: u16,
    /// Key 84.
    k084: u16,
    /// Key 85.
    k085: u16,
    /// Key 86.
    k086: u16,
    /// Key 87.
    k087: u16,
    /// Key 88.
    k088: u16,
    /// Key 89.
    k089: u16,
    /// Key 90.
    k090: u16,
    /// Key 91.
    k091: u16,
    /// Key 92.
    k092: u16,
    /// Key 93.
    k093: u16,
    /// Key 94.
    k094: u16,
    /// Key 95.
    k095: u16,
    /// Key 96.
    k096: u16,
    /// Key 97.
    k097: u16,
    /// Key 98.
    k098: u16,
    /// Key 99.
    k099: u16,
    /// Key 100.
    k100: u16,
    /// Key 101.
    k101: u16,
    /// Key 102.
    k102: u16,
    /// Key 103.
    k103: u16,
    /// Key 104.
    k104: u16,
    /// Key 105.
    k105: u16,
    /// Key 106.
    k106: u16,
    /// Key 107.
    k107: u16,
    /// Key 108.
    k108: u16,
    /// Key 109.
    k109: u16,
    /// Key 110.
    k110: u16,
    /// Key 111.
    k111: u16,
    /// Key 112.
    k112: u16,
    /// Key 113.
    k113: u16,
    /// Key 114.
    k114: u16,
    /// Key 115.
    k115: u16,
    /// Key 116.
    k116: u16,
    /// Key 117.
    k117: u16,
    /// Key 118.
    k118: u16,
    /// Key 119.
    k119: u16,
    /// Key 120.
    k120: u16,
    /// Key 121.
    k121: u16,
    /// Key 122.
    k122: u16,
    /// Key 123.
    k123: u16,
    /// Key 124.
    k124: u16,
    /// Key 125.
    k125: u16,
    /// Key 126.
    k126: u16,
    /// Key 127.
    k127: u16,
    /// Key 128.
    k128: u16,
    /// Key 129.
    k129: u16,
    /// Key 130.
    k130: u16,
    /// Key 131.
    k131: u16,
    /// Key 132.
    k132: u16,
    /// Key 133.
    k133: u16,
    /// Key 134.
    k134: u16,
    /// Key 135.
    k135: u16,
    /// Key 136.
    k136: u16,
    /// Key 137.
    k137: u16,
    /// Key 138.
    k138: u16,
    /// Key 139.
    k139: u16,
    /// Key 140.
    k140: u16,
    /// Key 141.
    k141: u16,
    /// Key 142.
    k142: u16,
    /// Key 143.
    k143: u16,
    /// Key 144.
    k144: u16,
    /// Key 145.
    k145: u16,
    /// Key 146.
    k146: u16,
    /// Key 147.
    k147: u16,
    /// Key 148.
    k148: u16,
    /// Key 149.
    k149: u16,
    /// Key 150.
    k150: u16,
    /// Key 151.
    k151: u16,
    /// Key 152.
    k152: u16,
    /// Key 153.
    k153: u16,
    /// Key 154.
    k154: u16,
    /// Key 155.
    k155: u16,
    /// Key 156.
    k156: u16,
    /// Key 157.
    k157: u16,
    /// Key 158.
    k158: u16,
    /// Key 159.
    k159: u16,
    /// Key 160.
    k160: u16,
    /// Key 161.
    k161: u16,
    /// Key 162.
    k162: u16,
    /// Key 163.
    k163: u16,
    /// Key 164.
    k164: u16,
    /// Key 165.
    k165: u16,
    /// Key 166.
    k166: u16,
    /// Key 167.
    k167: u16,
    /// Key 168.
    k168: u16,
    /// Key 169.
    k169: u16,
    /// Key 170.
    k170: u16,
    /// Key 171.
    k171: u16,
    /// Key 172.
    k172: u16,
    /// Key 173.
    k173: u16,
    /// Key 174.
    k174: u16,
    /// Key 175.
    k175: u16,
    /// Key 176.
    k176: u16,
    /// Key 177.
    k177: u16,
    /// Key 178.
    k178: u16,
    /// Key 179.
    k179: u16,
    /// Key 180.
    k180: u16,
    /// Key 181.
    k181: u16,
    /// Key 182.
    k182: u16,
    /// Key 183.
    k183: u16,
    /// Key 184.
    k184: u16,
    /// Key 185.
    k185: u16,
    /// Key 186.
    k186: u16,
    /// Key 187.
    k187: u16,
    /// Key 188.
    k188: u16,
    /// Key 189.
    k189: u16,
    /// Key 190.
    k190: u16,
    /// Key 191.
    k191: u16,
    /// Key 192.
    k192: u16,
    /// Key 193.
    k193: u16,
    /// Key 194.
    k194: u16,
    /// Key 195.
    k195: u16,
    /// Key 196.
    k196: u16,
    /// Key 197.
    k197: u16,
    /// Key 198.
    k198: u16,
    /// Key 199.
    k199: u16,
    /// Key 200.
    k200: u16,
    /// Key 201.
    k201: u16,
    /// Key 202.
    k202: u16,
    /// Key 203.
    k203: u16,
    /// Key 204.
    k204: u16,
    /// Key 205.
    k205: u16,
    /// Key 206.
    k206: u16,
    /// Key 207.
    k207: u16,
    /// Key 208.
    k208: u16,
    /// Key 209.
    k209: u16,
    /// Key 210.
    k210: u16,
    /// Key 211.
    k211: u16,
    /// Key 212.
    k212: u16,
    /// Key 213.
    k213: u16,
    /// Key 214.
    k214: u16,
    /// Key 215.
    k215: u16,
    /// Key 216.
    k216: u16,
    /// Key 217.
    k217: u16,
    /// Key 218.
    k218: u16,
    /// Key 219.
    k219: u16,
    /// Key 220.
    k220: u16,
    /// Key 221.
    k221: u16,
    /// Key 222.
    k222: u16,
    /// Key 223.
    k223: u16,
    /// Key 224.
    k224: u16,
    /// Key 225.
    k225: u16,
    /// Key 226.
    k226: u16,
    /// Key 227.
    k227: u16,
    /// Key 228.
    k228: u16,
    /// Key 229.
    k229: u16,
    /// Key 230.
    k230: u16,
    /// Key 231.
    k231: u16,
    /// Key 232.
    k232: u16,
    /// Key 233.
    k233: u16,
    /// Key 234.
    k234: u16,
    /// Key 235.
    k235: u16,
    /// Key 236.
    k236: u16,
    /// Key 237.
    k237: u16,
    /// Key 238.
    k238: u16,
    /// Key 239.
    k239: u16,
    /// Key 240.
    k240: u16,
    /// Key 241.
    k241: u16,
    /// Key 242.
    k242: u16,
    /// Key 243.
    k243: u16,
    /// Key 244.
    k244: u16,
    /// Key 245.
    k245: u16,
    /// Key 246.
    k246: u16,
    /// Key 247.
    k247: u16,
    /// Key 248.
    k248: u16,
    /// Key 249.
    k249: u16,
    /// Key 250.
    k250: u16,
    /// Key 251.
    k251: u16,
    /// Key 252.
    k252: u16,
    /// Key 253.
    k253: u16,
    /// Key 254.
    k254: u16,
    /// Key 255.
    k255: u16,
    /// Key 256.
    k256: u16,
    /// Key 257.
    k257: u16,
    /// Key 258.
    k258: u16,
    /// Key 259.
    k259: u16,
    /// Key 260.
    k260: u16,
    /// Key 261.
    k261: u16,
    /// Key 262.
    k262: u16,
    /// Key 263.
    k263: u16,
    /// Key 264.
    k264: u16,
    /// Key 265.
    k265: u16,
    /// Key 266.
    k266: u16,
    /// Key 267.
    k267: u16,
    /// Key 268.
    k268: u16,
    /// Key 269.
    k269: u16,
    /// Key 270.
    k270: u16,
    /// Key 271.
    k271: u16,
    /// Key 272.
    k272: u16,
    /// Key 273.
    k273: u16,
    /// Key 274.
    k274: u16,
    /// Key 275.
    k275: u16,
    /// Key 276.
    k276: u16,
    /// Key 277.
    k277: u16,
    /// Key 278.
    k278: u16,
    /// Key 279.
    k279: u16,
    /// Key 280.
    k280: u16,
    /// Key 281.
    k281: u16,
    /// Key 282.
    k282: u16,
    /// Key 283.
    k283: u16,
    /// Key 284.
    k284: u16,
    /// Key 285.
    k285: u16,
    /// Key 286.
    k286: u16,
    /// Key 287.
    k287: u16,
    /// Key 288.
    k288: u16,
    /// Key 289.
    k289: u16,
    /// Key 290.
    k290: u16,
    /// Key 291.
    k291: u16,
    /// Key 292.
    k292: u16,
    /// Key 293.
    k293: u16,
    /// Key 294.
    k294: u16,
    /// Key 295.
    k295: u16,
    /// Key 296.
    k296: u16,
    /// Key 297.
    k297: u16,
    /// Key 298.
    k298: u16,
    /// Key 299.
    k299: u16,
}

impl ToolRun for Wide100 {
    type Output = String;

    async fn run(self, _ctx: &ToolContext) -> String {
        format!("{self:?}")
    }
}

impl ToolRun for Wide300 {
    type Output = String;

    async fn run(self, _ctx: &ToolContext) -> String {
        format!("{self:?}")
    }
}

fn executor() -> Executor {
    Executor::new(tool_tests::declared_in(file!()))
}

/// Runs `name` on `raw`; the record's text, and its warnings as (pointer, rule).
async fn call(name: &str, raw: &str) -> (CallStatus, String, Vec<(String, String)>) {
    let record = executor().execute(ToolCallRequest::new(name, "call_1", raw)).await;
    let warnings = record.warnings().iter().map(|w| (w.pointer().to_owned(), w.rule().to_owned())).collect();
    (record.status, record.content.text, warnings)
}

fn at(pointer: &str, rule: &str) -> (String, String) {
    (pointer.to_owned(), rule.to_owned())
}

/// The refused fields of a failed extraction: (pointer, rule, expected).
fn errors<T>(extraction: tool_core::Extraction<'_, T>) -> Vec<(String, String, String)> {
    let Err(errors) = extraction.value else { panic!("the arguments were accepted") };
    errors.errors.iter().map(|e| (e.pointer.clone(), e.rule.clone(), e.expected.clone())).collect()
}

/// An object of `pairs`, in their order, as text.
fn object(pairs: impl IntoIterator<Item = (String, Value)>) -> String {
    Value::Object(pairs.into_iter().collect()).to_string()
}

// ---- 17 parameters -------------------------------------------------------------------------

#[test]
fn seventeen_parameters_are_declared_in_order_and_read_into_two_tuples() {
    let definition = <wide17 as DeclaredTool>::definition();
    let names: Vec<&str> = definition.parameters.iter().map(|p| p.name.as_str()).collect();
    let expected: Vec<String> = (1..=17).map(|i| format!("p{i:02}")).collect();
    assert_eq!(names, expected);
    assert!(!definition.parameters[16].required);
    assert_eq!(definition.input_schema["required"], json!(expected[..16]));

    let raw = object((1..=16).map(|i| (format!("p{i:02}"), json!(i))).chain([("p17".into(), json!("last"))]));
    let extraction = <wide17 as DeclaredTool>::extract(&raw);
    assert!(extraction.warnings.is_empty());
    assert_eq!(extraction.arguments, None, "read in the single pass");
    let Wide(front, (last,)) = extraction.value.unwrap();
    assert_eq!((front.0, front.7, front.15, last.as_deref()), (1, 8, 16, Some("last")));
}

#[tokio::test]
async fn seventeen_parameters_reach_the_function_in_place_and_the_last_may_be_absent() {
    let raw = object((1..=16).rev().map(|i| (format!("p{i:02}"), json!(i * 10))));
    let text: Vec<String> = (1..=16).map(|i| format!("p{i:02}={}", i * 10)).collect();
    assert_eq!(call("wide17", &raw).await, (CallStatus::Success, format!("{} p17=None", text.join(" ")), vec![]));
}

// ---- 40 parameters -------------------------------------------------------------------------

/// Parameter `i` (from 0) of `wide40`: its JSON value in the clean arguments, and how the
/// function prints it.
fn value40(i: usize) -> (Value, String) {
    if i % 8 == 7 {
        return (json!(100 + i), format!("{}", 100 + i));
    }
    match i % 5 {
        0 => (json!(format!("s{i}")), format!("\"s{i}\"")),
        1 => (json!(i), format!("Some({i})")),
        2 => (json!(i % 4 == 2), format!("{}", i % 4 == 2)),
        3 => (json!(i as f64 + 0.5), format!("{:?}", i as f64 + 0.5)),
        _ => (json!([format!("a{i}"), "b"]), format!("[\"a{i}\", \"b\"]")),
    }
}

fn name40(i: usize) -> String {
    format!("q{:02}", i + 1)
}

/// The clean arguments of `wide40`, in declaration order.
fn clean40() -> Vec<(String, Value)> {
    (0..40).map(|i| (name40(i), value40(i).0)).collect()
}

/// What `wide40` prints for the values of `clean40`, with `changed` in place of some.
fn printed40(changed: &[(usize, &str)]) -> String {
    let each = (0..40).map(|i| {
        let text = changed.iter().find(|(at, _)| *at == i).map_or_else(|| value40(i).1, |(_, text)| (*text).to_owned());
        format!("{}={text}", name40(i))
    });
    each.collect::<Vec<_>>().join(" ")
}

#[test]
fn forty_parameters_are_declared_in_order_with_their_required_list() {
    let definition = <wide40 as DeclaredTool>::definition();
    let names: Vec<&str> = definition.parameters.iter().map(|p| p.name.as_str()).collect();
    assert_eq!(names, (0..40).map(name40).collect::<Vec<_>>());
    // Optional: the `Option<u32>`s and the parameters with a default.
    let required: Vec<String> = (0..40).filter(|i| i % 8 != 7 && i % 5 != 1).map(name40).collect();
    assert_eq!(definition.input_schema["required"], json!(required));
    assert_eq!(definition.input_schema["properties"].as_object().unwrap().len(), 40);
    assert_eq!(definition.parameters[7].default, Some(json!(7)));
}

#[tokio::test]
async fn forty_clean_parameters_are_read_in_the_single_pass_and_reach_the_function_in_place() {
    let raw = object(clean40());
    let extraction = <wide40 as DeclaredTool>::extract(&raw);
    assert!(extraction.warnings.is_empty());
    assert_eq!(extraction.arguments, None, "read in the single pass");
    assert_eq!(call("wide40", &raw).await, (CallStatus::Success, printed40(&[]), vec![]));
}

#[tokio::test]
async fn forty_messy_parameters_in_reverse_order_are_converted_with_a_warning_each() {
    let mut pairs = clean40();
    pairs[1].1 = json!("1"); // `Option<u32>`
    pairs[22].1 = json!("true"); // `bool`
    pairs[39].1 = json!("139"); // `u64` with a default
    pairs.push(("q41".into(), json!(1)));
    pairs.reverse();
    let (status, text, warnings) = call("wide40", &object(pairs)).await;
    assert_eq!((status, text), (CallStatus::Success, printed40(&[])));
    assert_eq!(
        warnings,
        vec![
            at("/q40", "string_to_integer"),
            at("/q23", "string_to_boolean"),
            at("/q02", "string_to_integer"),
            at("/q41", "unknown_parameter"),
        ]
    );
}

#[tokio::test]
async fn forty_parameters_take_their_defaults_or_none_when_absent() {
    // Every optional parameter left out: the `Option<u32>`s and those with a default.
    let pairs = clean40().into_iter().enumerate().filter(|(i, _)| i % 8 != 7 && i % 5 != 1).map(|(_, p)| p);
    let absent: Vec<(usize, &str)> =
        (0..40).filter_map(|i| (i % 8 == 7).then_some((i, "7")).or((i % 5 == 1).then_some((i, "None")))).collect();
    assert_eq!(call("wide40", &object(pairs)).await, (CallStatus::Success, printed40(&absent), vec![]));
}

#[test]
fn forty_parameters_missing_in_both_halves_are_each_reported() {
    let left_out = [0, 20, 38, 31, 39, 1];
    let pairs = clean40().into_iter().enumerate().filter(|(i, _)| !left_out.contains(i)).map(|(_, p)| p);
    let raw = object(pairs);
    assert_eq!(
        errors(<wide40 as DeclaredTool>::extract(&raw)),
        vec![
            ("/q01".into(), "missing_required".into(), "a string".into()),
            ("/q21".into(), "missing_required".into(), "a string".into()),
            ("/q39".into(), "missing_required".into(), "a number".into()),
        ]
    );
}

// ---- 100 parameters, struct form -----------------------------------------------------------

/// `Wide100`'s field `i` (from 0): its JSON value and how `Debug` prints it.
fn value100(i: usize) -> (Value, String) {
    match (i % 10 == 9, i % 20 == 19) {
        (false, _) => (json!(i * 3), format!("{}", i * 3)),
        (true, false) => (json!(i * 3), format!("Some({})", i * 3)),
        (true, true) => (Value::Null, "None".to_owned()),
    }
}

fn printed100(skip: &[usize]) -> String {
    let fields: Vec<String> = (0..100)
        .map(|i| format!("f{:03}: {}", i + 1, if skip.contains(&i) { "None".to_owned() } else { value100(i).1 }))
        .collect();
    format!("Wide100 {{ {} }}", fields.join(", "))
}

#[tokio::test]
async fn a_hundred_fields_are_declared_read_and_run_in_place() {
    let definition = <Wide100 as DeclaredTool>::definition();
    assert_eq!(definition.name, "wide100");
    assert_eq!(definition.parameters.len(), 100);
    assert_eq!(definition.parameters[99].name, "f100");
    assert_eq!(definition.input_schema["required"].as_array().unwrap().len(), 90);

    let raw = object((0..100).map(|i| (format!("f{:03}", i + 1), value100(i).0)));
    assert_eq!(call("wide100", &raw).await, (CallStatus::Success, printed100(&[]), vec![]));

    // Optional fields left out, required ones sent as text, keys shuffled.
    let mut pairs: Vec<(String, Value)> = (0..100)
        .filter(|i| i % 10 != 9)
        .map(|i| (format!("f{:03}", i + 1), if i % 33 == 0 { json!((i * 3).to_string()) } else { value100(i).0 }))
        .collect();
    pairs.rotate_left(37);
    let skipped: Vec<usize> = (0..100).filter(|i| i % 10 == 9).collect();
    let (status, text, warnings) = call("wide100", &object(pairs)).await;
    assert_eq!((status, text), (CallStatus::Success, printed100(&skipped)));
    assert_eq!(
        warnings,
        vec![at("/f067", "string_to_integer"), at("/f001", "string_to_integer"), at("/f034", "string_to_integer")]
    );
}

#[test]
fn a_hundred_fields_missing_far_apart_are_each_reported() {
    let raw = object((0..100).filter(|i| ![0, 48, 98].contains(i)).map(|i| (format!("f{:03}", i + 1), value100(i).0)));
    assert_eq!(
        errors(<Wide100 as DeclaredTool>::extract(&raw)),
        vec![
            ("/f001".into(), "missing_required".into(), "an integer".into()),
            ("/f049".into(), "missing_required".into(), "an integer".into()),
            ("/f099".into(), "missing_required".into(), "an integer".into()),
        ]
    );
}

// ---- 300 parameters: more positions than a byte holds --------------------------------------

fn printed300(value: impl Fn(usize) -> usize) -> String {
    let fields: Vec<String> = (0..300).map(|i| format!("k{i:03}: {}", value(i))).collect();
    format!("Wide300 {{ {} }}", fields.join(", "))
}

#[tokio::test]
async fn three_hundred_fields_are_read_past_the_255th_in_any_order() {
    let definition = <Wide300 as DeclaredTool>::definition();
    assert_eq!(definition.parameters.len(), 300);
    assert_eq!(definition.parameters[255].name, "k255");

    let raw = object((0..300).map(|i| (format!("k{i:03}"), json!(i))));
    let extraction = <Wide300 as DeclaredTool>::extract(&raw);
    assert!(extraction.warnings.is_empty());
    assert_eq!(extraction.arguments, None, "read in the single pass");
    assert_eq!(call("wide300", &raw).await, (CallStatus::Success, printed300(|i| i), vec![]));

    // Reversed, one value as text, and an unknown key (the position after the last).
    let mut pairs: Vec<(String, Value)> =
        (0..300).map(|i| (format!("k{i:03}"), if i == 255 { json!("1255") } else { json!(i + 1000) })).collect();
    pairs.push(("k300".into(), json!(300)));
    pairs.reverse();
    let (status, text, warnings) = call("wide300", &object(pairs)).await;
    assert_eq!((status, text), (CallStatus::Success, printed300(|i| i + 1000)));
    assert_eq!(warnings, vec![at("/k255", "string_to_integer"), at("/k300", "unknown_parameter")]);
}

#[test]
fn three_hundred_fields_report_exactly_the_missing_ones() {
    let raw = object((0..300).filter(|i| ![254, 256, 299].contains(i)).map(|i| (format!("k{i:03}"), json!(i))));
    assert_eq!(
        errors(<Wide300 as DeclaredTool>::extract(&raw)),
        vec![
            ("/k254".into(), "missing_required".into(), "an integer".into()),
            ("/k256".into(), "missing_required".into(), "an integer".into()),
            ("/k299".into(), "missing_required".into(), "an integer".into()),
        ]
    );
}
