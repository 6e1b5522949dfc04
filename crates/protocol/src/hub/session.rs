//! The engine side of a Hub conversation as a state machine: commands in, actions out. No I/O
//! and no threads: the command line prints the replies, runs the searches and reports back
//! when one ends.
//!
//! Two stages. Before `init` the variant is not known, so [`Setup`] answers `hub`, `set-param`
//! and `ping`. At `init` (or at the first command that needs a position) the driver builds the
//! rules and a [`Session`], which owns the game, the level and the search state:
//!
//! * `pos` sets the position (and plays `moves` from it), `level` sets the limits of the next
//!   search only (without one, `go think` and `go ponder` use one second per move and
//!   `go analyze` runs until `stop`), `go` starts a search ([`Action::Search`]).
//! * While a search runs, `ping` is answered at once, `stop` and `ponder-hit` are passed on,
//!   `quit` stops and quits; anything else waits until the search has answered `done`.
//! * `set-param` after `init` takes effect at the next `init`, which then rebuilds the engine
//!   ([`Action::Reinit`]).
//! * pydraughts' Hub client never says the variant (its user may): while the GUI has not set
//!   it, a `pos` whose length fits only one of pydraughts' boards (51 characters:
//!   International, 65: Turkish) switches the engine to that variant ([`Action::Switch`]).

use std::collections::VecDeque;
use std::sync::Arc;
use std::time::Duration;

use damspel_rules::{Bits, Game, Move, Position, Rules, Variant};

use super::board::{parse_move, parse_position, write_move};
use super::parse::Response;
use super::parse::{
    shown, Command, EngineId, GoMode, HubError, InfoLine, Level, ParamDecl, ParamKind,
};

/// The engine parameters a GUI may set.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Params {
    /// Catalogue id of the variant.
    pub variant: String,
    /// Whether the GUI has set the variant (otherwise it may be inferred from a position).
    pub variant_chosen: bool,
    pub threads: u32,
    /// Transposition table size in MiB.
    pub hash_mb: u32,
    /// Playing level, 1 (a beginner can win) to [`MAX_LEVEL`] (full strength).
    pub level: u32,
    /// Folder of endgame tables (`tb-dir`); empty: the engine's default folder.
    pub tb_dir: String,
}

/// The protocol's own bounds; an engine declares its own maxima within them ([`Limits`]).
pub const MAX_THREADS: u32 = 256;
pub const MAX_HASH_MB: u32 = 65_536;
/// The deepest search `level depth=` may ask for (the engine's own maximum, checked where both
/// are known).
pub const MAX_DEPTH: u32 = 64;
/// Damspel's playing levels are 1 to 8; 8 is full strength.
pub const MAX_LEVEL: u32 = 8;

/// The largest `threads` and `hash` the engine can honour on this machine (the driver knows
/// the engine and the machine; the state machine only checks against them).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limits {
    pub max_threads: u32,
    pub max_hash_mb: u32,
}

impl Default for Limits {
    fn default() -> Limits {
        Limits {
            max_threads: MAX_THREADS,
            max_hash_mb: MAX_HASH_MB,
        }
    }
}

/// Who the engine is and which variants it knows.
#[derive(Clone, Debug)]
pub struct Identity {
    pub id: EngineId,
    /// Catalogue ids, in the order they are declared.
    pub variants: Vec<String>,
    /// Every name a variant answers to (ids, aliases, Scan's `normal`) and its id.
    pub names: Vec<(String, String)>,
    pub defaults: Params,
    pub limits: Limits,
}

impl Identity {
    /// Every name a GUI may give one of `variants`, with its id: the ids, the aliases, and
    /// the names Scan (`normal`), pydraughts and lidraughts (`standard`) give International.
    pub fn names_of(variants: &[Variant]) -> Vec<(String, String)> {
        let mut names = Vec::new();
        for v in variants {
            names.push((v.id.clone(), v.id.clone()));
            names.extend(v.aliases.iter().map(|a| (a.clone(), v.id.clone())));
        }
        if variants.iter().any(|v| v.id == "international") {
            names.push(("normal".into(), "international".into()));
            names.push(("standard".into(), "international".into()));
        }
        names
    }

    /// The id of the variant called `name`.
    pub fn resolve(&self, name: &str) -> Option<&str> {
        self.names
            .iter()
            .find(|(n, _)| n == name)
            .or_else(|| {
                self.names
                    .iter()
                    .find(|(n, _)| n.eq_ignore_ascii_case(name))
            })
            .map(|(_, id)| id.as_str())
    }
}

/// The reply to `hub`: `id`, one `param` per parameter with its current value, `wait`.
pub fn declare(identity: &Identity, params: &Params) -> Vec<Response> {
    vec![
        Response::Id(identity.id.clone()),
        Response::Param(ParamDecl {
            name: "variant".into(),
            value: params.variant.clone(),
            kind: ParamKind::Enum {
                values: identity.variants.clone(),
            },
        }),
        Response::Param(ParamDecl {
            name: "threads".into(),
            value: params.threads.to_string(),
            kind: ParamKind::Int {
                min: 1,
                max: identity.limits.max_threads.into(),
            },
        }),
        Response::Param(ParamDecl {
            name: "hash".into(),
            value: params.hash_mb.to_string(),
            kind: ParamKind::Int {
                min: 1,
                max: identity.limits.max_hash_mb.into(),
            },
        }),
        Response::Param(ParamDecl {
            name: "level".into(),
            value: params.level.to_string(),
            kind: ParamKind::Int {
                min: 1,
                max: MAX_LEVEL.into(),
            },
        }),
        Response::Param(ParamDecl {
            name: "tb-dir".into(),
            value: params.tb_dir.clone(),
            kind: ParamKind::String,
        }),
        Response::Wait,
    ]
}

/// Applies `set-param`. Unknown parameters are ignored (the protocol asks it); bad values are
/// errors and change nothing.
pub fn apply_param(
    identity: &Identity,
    params: &mut Params,
    name: &str,
    value: &str,
) -> Result<(), HubError> {
    let int = |max: u32| -> Result<u32, HubError> {
        value
            .parse::<u32>()
            .ok()
            .filter(|v| (1..=max).contains(v))
            .ok_or_else(|| {
                HubError::new(format!(
                    "parameter {name} is a whole number from 1 to {max}, not `{}`",
                    shown(value)
                ))
            })
    };
    match name {
        "variant" => match identity.resolve(value) {
            Some(id) => {
                params.variant = id.to_string();
                params.variant_chosen = true;
            }
            None => {
                return Err(HubError::new(format!(
                    "unknown variant `{}`; known: {}",
                    shown(value),
                    identity.variants.join(" ")
                )))
            }
        },
        "threads" => params.threads = int(identity.limits.max_threads.min(MAX_THREADS))?,
        "hash" => params.hash_mb = int(identity.limits.max_hash_mb.min(MAX_HASH_MB))?,
        "level" => params.level = int(MAX_LEVEL)?,
        "tb-dir" => params.tb_dir = value.to_string(),
        _ => {}
    }
    Ok(())
}

/// What happens to a command before `init`.
#[derive(Clone, Debug, PartialEq)]
pub enum SetupStep {
    /// Print these lines (possibly none).
    Reply(Vec<Response>),
    /// Build the engine for `params`. `announce`: answer `ready` (an explicit `init`);
    /// otherwise initialise silently and hand `pending` to the new [`Session`].
    Init {
        params: Params,
        announce: bool,
        pending: Option<Command>,
    },
    Quit,
}

/// The conversation before `init`.
#[derive(Clone, Debug)]
pub struct Setup {
    identity: Identity,
    params: Params,
}

impl Setup {
    pub fn new(identity: Identity) -> Setup {
        let params = identity.defaults.clone();
        Setup { identity, params }
    }

    pub fn params(&self) -> &Params {
        &self.params
    }

    pub fn handle(&mut self, command: Command) -> SetupStep {
        match command {
            Command::Hub => SetupStep::Reply(declare(&self.identity, &self.params)),
            Command::SetParam { name, value } => {
                match apply_param(&self.identity, &mut self.params, &name, &value) {
                    Ok(()) => SetupStep::Reply(vec![]),
                    Err(e) => SetupStep::Reply(vec![Response::Error(e.message)]),
                }
            }
            Command::Init => SetupStep::Init {
                params: self.params.clone(),
                announce: true,
                pending: None,
            },
            Command::Ping => SetupStep::Reply(vec![Response::Pong]),
            Command::Quit => SetupStep::Quit,
            // Nothing runs yet.
            Command::Stop | Command::PonderHit | Command::Unknown(_) => SetupStep::Reply(vec![]),
            // A GUI that skips `init`: initialise with what is set and go on.
            c @ (Command::NewGame | Command::Pos { .. } | Command::Level(_) | Command::Go(_)) => {
                SetupStep::Init {
                    params: self.params.clone(),
                    announce: false,
                    pending: Some(c),
                }
            }
        }
    }
}

/// A search to run.
#[derive(Clone, Debug)]
pub struct SearchOrder<B: Bits> {
    /// The game up to the position to search (its history serves repetition detection).
    pub game: Game<B>,
    pub level: Level,
    pub mode: GoMode,
}

/// What the driver must do.
#[derive(Clone, Debug)]
pub enum Action<B: Bits> {
    Reply(Response),
    /// Forget what was learnt (clear the transposition table).
    NewGame,
    /// Start this search on its own thread; report its end with [`Session::finished`].
    Search(SearchOrder<B>),
    /// Stop the running search (it still answers `done`).
    Stop,
    /// The ponder search becomes a normal one: bound it by the level's think time.
    PonderHit,
    /// `init` with changed parameters: rebuild the engine and the session, then say `ready`.
    Reinit(Params),
    /// The variant was inferred from a position: rebuild the engine and the session for
    /// `params` without a word, and hand them `pending` (the `pos`, then any commands that
    /// were waiting) with [`Session::resume`].
    Switch {
        params: Params,
        pending: Vec<Command>,
    },
    Quit,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum State {
    Idle,
    Searching(GoMode),
}

/// The conversation after `init`, for one variant.
pub struct Session<B: Bits> {
    identity: Identity,
    /// The parameters the engine was built with.
    active: Params,
    /// As set since (they take effect at the next `init`).
    params: Params,
    rules: Arc<Rules<B>>,
    game: Game<B>,
    level: Option<Level>,
    state: State,
    deferred: VecDeque<Command>,
}

/// One second per move.
pub const DEFAULT_MOVE_TIME: f64 = 1.0;

impl<B: Bits> Session<B> {
    pub fn new(identity: Identity, params: Params, rules: Arc<Rules<B>>) -> Session<B> {
        Session {
            identity,
            active: params.clone(),
            params,
            game: Game::new(rules.clone()),
            rules,
            level: None,
            state: State::Idle,
            deferred: VecDeque::new(),
        }
    }

    pub fn rules(&self) -> &Arc<Rules<B>> {
        &self.rules
    }

    /// The game whose last position the next `go` searches.
    pub fn game(&self) -> &Game<B> {
        &self.game
    }

    pub fn is_searching(&self) -> bool {
        self.state != State::Idle
    }

    pub fn handle(&mut self, command: Command) -> Vec<Action<B>> {
        if let State::Searching(mode) = self.state {
            return match command {
                Command::Ping => vec![Action::Reply(Response::Pong)],
                Command::Stop => vec![Action::Stop],
                Command::PonderHit if mode == GoMode::Ponder => {
                    self.state = State::Searching(GoMode::Think);
                    vec![Action::PonderHit]
                }
                Command::PonderHit | Command::Unknown(_) => vec![],
                Command::Quit => vec![Action::Stop, Action::Quit],
                other => {
                    self.deferred.push_back(other);
                    vec![]
                }
            };
        }
        let reply = |r: Response| vec![Action::Reply(r)];
        match command {
            Command::Hub => declare(&self.identity, &self.params)
                .into_iter()
                .map(Action::Reply)
                .collect(),
            Command::SetParam { name, value } => {
                match apply_param(&self.identity, &mut self.params, &name, &value) {
                    Ok(()) => vec![],
                    Err(e) => reply(Response::Error(e.message)),
                }
            }
            Command::Init => {
                let same = Params {
                    variant_chosen: self.active.variant_chosen,
                    ..self.params.clone()
                };
                if same == self.active {
                    reply(Response::Ready)
                } else {
                    vec![Action::Reinit(self.params.clone())]
                }
            }
            Command::NewGame => vec![Action::NewGame],
            Command::Pos { pos, moves } => self.set_position(pos.as_deref(), &moves),
            Command::Level(level) => {
                self.level = Some(level);
                vec![]
            }
            Command::Go(mode) => self.go(mode),
            Command::Ping => reply(Response::Pong),
            Command::Quit => vec![Action::Quit],
            Command::Stop | Command::PonderHit | Command::Unknown(_) => vec![],
        }
    }

    fn set_position(&mut self, pos: Option<&str>, moves: &[String]) -> Vec<Action<B>> {
        let start = match pos {
            None => Position::start(&self.rules),
            Some(text) => match parse_position(&self.rules, text) {
                Ok(p) => p,
                Err(e) => {
                    if let Some(params) = self.inferred_variant(text) {
                        let mut pending = vec![Command::Pos {
                            pos: pos.map(str::to_string),
                            moves: moves.to_vec(),
                        }];
                        pending.extend(self.deferred.drain(..));
                        return vec![Action::Switch { params, pending }];
                    }
                    let hint = if self.params.variant_chosen {
                        ""
                    } else {
                        UNCHOSEN_HINT
                    };
                    return vec![Action::Reply(Response::Error(format!(
                        "bad position: {e}{hint}"
                    )))];
                }
            },
        };
        let mut game = Game::from_position(self.rules.clone(), start);
        let mut actions = vec![];
        for text in moves {
            match parse_move(&self.rules, game.position(), text) {
                Ok(mv) => game.play_unchecked(&mv),
                Err(e) => {
                    actions.push(Action::Reply(Response::Error(format!(
                        "moves: {e}; the position is the one before it"
                    ))));
                    break;
                }
            }
        }
        self.game = game;
        actions
    }

    /// The variant a position of this length must be, when the GUI has not chosen one and
    /// the length is that of exactly one of pydraughts' boards other than this one.
    fn inferred_variant(&self, text: &str) -> Option<Params> {
        if self.params.variant_chosen {
            return None;
        }
        let len = text.chars().count();
        let (_, name) = INFERRED.iter().find(|(l, _)| *l == len)?;
        let id = self.identity.resolve(name)?;
        (id != self.rules.variant().id).then(|| Params {
            variant: id.to_string(),
            ..self.params.clone()
        })
    }

    fn go(&mut self, mode: GoMode) -> Vec<Action<B>> {
        let level = self.level.take().unwrap_or(match mode {
            GoMode::Analyze => Level {
                infinite: true,
                ..Level::default()
            },
            GoMode::Think | GoMode::Ponder => Level {
                move_time: Some(DEFAULT_MOVE_TIME),
                ..Level::default()
            },
        });
        if !self.rules.has_legal_move(self.game.position()) {
            return vec![
                Action::Reply(Response::Error(
                    "the position has no legal move: nothing to search".into(),
                )),
                Action::Reply(Response::Done {
                    mv: None,
                    ponder: None,
                }),
            ];
        }
        self.state = State::Searching(mode);
        vec![Action::Search(SearchOrder {
            game: self.game.clone(),
            level,
            mode,
        })]
    }

    /// The running search has ended with this move (and expected answer): `done`, then the
    /// commands that arrived meanwhile.
    pub fn finished(&mut self, best: Option<Move<B>>, ponder: Option<Move<B>>) -> Vec<Action<B>> {
        self.state = State::Idle;
        let v = self.rules.variant();
        let mut actions = vec![Action::Reply(Response::Done {
            mv: best.map(|m| write_move(v, &m)),
            ponder: best.and(ponder).map(|m| write_move(v, &m)),
        })];
        actions.extend(self.run_deferred());
        actions
    }

    /// Handles commands carried over from the session before (see [`Action::Switch`]), as
    /// if they had waited for a search.
    pub fn resume(&mut self, commands: Vec<Command>) -> Vec<Action<B>> {
        self.deferred.extend(commands);
        self.run_deferred()
    }

    fn run_deferred(&mut self) -> Vec<Action<B>> {
        let mut actions = vec![];
        while self.state == State::Idle {
            let Some(command) = self.deferred.pop_front() else {
                break;
            };
            actions.extend(self.handle(command));
        }
        actions
    }
}

/// The boards pydraughts plays whose size names the variant: position length and variant.
/// (Its 32-square boards are three variants: Russian, Brazilian and American.)
const INFERRED: [(usize, &str); 2] = [(51, "international"), (65, "turkish")];

const UNCHOSEN_HINT: &str = "; no variant was set: pydraughts does not send it, so set it \
    with `set-param name=variant value=…` (on 32 squares: russian, brazilian or american)";

/// A search score as the engine knows it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum SearchScore {
    /// Centi-men from the side to move's point of view.
    CentiMen(i32),
    /// A forced win in this many plies.
    WinIn(u32),
    /// A forced loss in this many plies.
    LossIn(u32),
}

/// Men, as `info score=` carries them (Scan's convention: centi-men / 100). A forced win in
/// n plies is 100 − n/100 (Scan's 10000 − n centi-men, which pydraughts reads back as a win),
/// a forced loss its negative; other scores are kept within ±89.99.
pub fn score_in_men(score: SearchScore) -> f64 {
    match score {
        SearchScore::CentiMen(c) => f64::from(c.clamp(-8999, 8999)) / 100.0,
        SearchScore::WinIn(n) => f64::from(10_000 - n.min(999) as i32) / 100.0,
        SearchScore::LossIn(n) => -f64::from(10_000 - n.min(999) as i32) / 100.0,
    }
}

/// An `info` line for one finished iteration. `nps` is in millions of nodes per second, left
/// out below a millisecond.
pub fn info_response<B: Bits>(
    rules: &Rules<B>,
    depth: u32,
    score: SearchScore,
    nodes: u64,
    elapsed: Duration,
    pv: &[Move<B>],
) -> Response {
    let v = rules.variant();
    let secs = elapsed.as_secs_f64();
    Response::Info(InfoLine {
        depth: Some(depth),
        mean_depth: None,
        score: Some(score_in_men(score)),
        nodes: Some(nodes),
        time: Some(secs),
        nps: (secs >= 0.001).then(|| nodes as f64 / secs / 1e6),
        pv: pv.iter().map(|m| write_move(v, m)).collect(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use damspel_rules::Catalogue;

    fn identity() -> Identity {
        let catalogue = Catalogue::builtin();
        let names = Identity::names_of(&catalogue.variants().unwrap());
        Identity {
            id: EngineId {
                name: "Damspel".into(),
                version: "0.1.0".into(),
                author: "The Damspel authors".into(),
                country: "Netherlands".into(),
            },
            variants: catalogue.ids(),
            names,
            defaults: Params {
                variant: "international".into(),
                variant_chosen: false,
                threads: 1,
                hash_mb: 64,
                level: MAX_LEVEL,
                tb_dir: String::new(),
            },
            limits: Limits {
                max_threads: 64,
                max_hash_mb: 4096,
            },
        }
    }

    fn cmd(text: &str) -> Command {
        Command::parse(text).unwrap()
    }

    fn session() -> Session<u64> {
        let v = Catalogue::builtin().get("international").unwrap();
        Session::new(
            identity(),
            identity().defaults,
            Arc::new(Rules::new(v).unwrap()),
        )
    }

    fn replies<B: Bits>(actions: &[Action<B>]) -> Vec<String> {
        actions
            .iter()
            .filter_map(|a| match a {
                Action::Reply(r) => Some(r.to_string()),
                _ => None,
            })
            .collect()
    }

    #[test]
    fn a_gui_may_name_international_as_scan_and_pydraughts_do() {
        let identity = identity();
        // Scan's `variant` enum calls it `normal` (reference/README.md §7); pydraughts and
        // lidraughts call it `standard`.
        assert_eq!(identity.resolve("normal"), Some("international"));
        assert_eq!(identity.resolve("standard"), Some("international"));
        assert_eq!(identity.resolve("Standard"), Some("international"));
        assert_eq!(identity.resolve("killer"), Some("killer"));
        assert_eq!(
            identity.resolve("frisian"),
            None,
            "not a variant of the rule book"
        );
        // A catalogue without International gives the other names no meaning.
        let turkish = Catalogue::builtin().get("turkish").unwrap();
        let names = Identity::names_of(&[turkish]);
        assert!(names.iter().all(|(_, id)| id == "turkish"), "{names:?}");
    }

    #[test]
    fn setup_declares_the_engine_and_takes_parameters() {
        let mut setup = Setup::new(identity());
        let SetupStep::Reply(lines) = setup.handle(cmd("hub")) else {
            panic!()
        };
        let text: Vec<String> = lines.iter().map(ToString::to_string).collect();
        assert!(text[0].starts_with("id name=Damspel version=0.1.0 author="));
        assert!(text[1].starts_with("param name=variant value=international type=enum values=\""));
        assert!(text[1].contains(" international ") && text[1].contains(" killer"));
        assert_eq!(text[2], "param name=threads value=1 type=int min=1 max=64");
        assert_eq!(text[3], "param name=hash value=64 type=int min=1 max=4096");
        assert_eq!(text[4], "param name=level value=8 type=int min=1 max=8");
        assert_eq!(text[5], "param name=tb-dir value=\"\" type=string");
        assert_eq!(text.last().unwrap(), "wait");

        assert_eq!(
            setup.handle(cmd("set-param name=variant value=killer")),
            SetupStep::Reply(vec![])
        );
        assert_eq!(setup.params().variant, "killer");
        // Scan's name and the catalogue's aliases are understood.
        setup.handle(cmd("set-param name=variant value=normal"));
        assert_eq!(setup.params().variant, "international");
        setup.handle(cmd("set-param name=variant value=english"));
        assert_eq!(setup.params().variant, "american");
        setup.handle(cmd("set-param name=threads value=2"));
        setup.handle(cmd("set-param name=hash value=16"));
        setup.handle(cmd("set-param name=book value=false"));
        for bad in [
            "set-param name=variant value=chess",
            "set-param name=threads value=0",
            "set-param name=threads value=many",
            "set-param name=hash value=-5",
            // Above what this machine's engine declared.
            "set-param name=hash value=4097",
            "set-param name=threads value=65",
        ] {
            let SetupStep::Reply(r) = setup.handle(cmd(bad)) else {
                panic!()
            };
            assert!(matches!(r.as_slice(), [Response::Error(_)]), "{bad}");
        }
        // A long value is quoted by its start (a line may hold a MiB).
        for name in ["variant", "hash"] {
            let long = format!("set-param name={name} value={}", "9".repeat(5000));
            let SetupStep::Reply(r) = setup.handle(cmd(&long)) else {
                panic!()
            };
            let [Response::Error(e)] = r.as_slice() else {
                panic!("{name}: {r:?}")
            };
            let text = Response::Error(e.clone()).to_string();
            assert!(text.len() < 1000 && text.contains("..."), "{name}: {text}");
        }
        assert_eq!(
            setup.handle(cmd("ping")),
            SetupStep::Reply(vec![Response::Pong])
        );
        assert_eq!(
            setup.handle(cmd("init")),
            SetupStep::Init {
                params: Params {
                    variant: "american".into(),
                    variant_chosen: true,
                    threads: 2,
                    hash_mb: 16,
                    level: MAX_LEVEL,
                    tb_dir: String::new(),
                },
                announce: true,
                pending: None
            }
        );
        assert_eq!(setup.handle(cmd("quit")), SetupStep::Quit);
        assert_eq!(setup.handle(cmd("stop")), SetupStep::Reply(vec![]));
        assert!(matches!(
            setup.handle(cmd("pos start")),
            SetupStep::Init {
                announce: false,
                pending: Some(Command::Pos { .. }),
                ..
            }
        ));
    }

    #[test]
    fn a_search_from_pos_level_go_to_done() {
        let mut s = session();
        assert!(s
            .handle(cmd(
                "pos pos=Wbbbbbbbbbbbbbbbbbbbbeeeeeeeeeewwwwwwwwwwwwwwwwwwww moves=\"32-28 19-23\""
            ))
            .is_empty());
        assert_eq!(s.game().moves().len(), 2);
        assert!(s.handle(cmd("level depth=3")).is_empty());
        let actions = s.handle(cmd("go think"));
        let [Action::Search(order)] = actions.as_slice() else {
            panic!("{actions:?}")
        };
        assert_eq!(order.level.depth, Some(3));
        assert_eq!(order.mode, GoMode::Think);
        assert_eq!(order.game.moves().len(), 2);
        assert!(s.is_searching());
        // During the search: ping answers, stop passes on, other commands wait.
        assert_eq!(replies(&s.handle(cmd("ping"))), ["pong"]);
        assert!(matches!(s.handle(cmd("stop")).as_slice(), [Action::Stop]));
        assert!(s.handle(cmd("level depth=1")).is_empty());
        assert!(s.handle(cmd("go think")).is_empty());
        // 28x19x23 is White's only move.
        let mv = parse_move(s.rules(), s.game().position(), "28x19x23").unwrap();
        let after = s.game().position().play(&mv);
        let answer = s.rules().moves(&after)[0];
        let actions = s.finished(Some(mv), Some(answer));
        let text = replies(&actions);
        assert!(
            text[0].starts_with("done move=28x19x23 ponder="),
            "{text:?}"
        );
        // The deferred `level` and `go` ran: a new search of depth 1.
        let [_, Action::Search(order)] = actions.as_slice() else {
            panic!("{actions:?}")
        };
        assert_eq!(order.level.depth, Some(1));
        let done = s.finished(Some(mv), None);
        assert_eq!(replies(&done), ["done move=28x19x23"]);
        assert!(!s.is_searching());
    }

    #[test]
    fn the_level_applies_to_one_search_and_has_defaults() {
        let mut s = session();
        let order = |actions: Vec<Action<u64>>| match actions.as_slice() {
            [Action::Search(o)] => o.clone(),
            other => panic!("{other:?}"),
        };
        s.handle(cmd("level move-time=0.5"));
        let o = order(s.handle(cmd("go think")));
        assert_eq!(o.level.move_time, Some(0.5));
        s.finished(None, None);
        let o = order(s.handle(cmd("go think")));
        assert_eq!(o.level.move_time, Some(DEFAULT_MOVE_TIME));
        s.finished(None, None);
        let o = order(s.handle(cmd("go analyze")));
        assert!(o.level.infinite);
        assert_eq!(o.mode, GoMode::Analyze);
    }

    #[test]
    fn pondering_and_ponder_hit() {
        let mut s = session();
        s.handle(cmd("level move-time=2"));
        let actions = s.handle(cmd("go ponder"));
        assert!(matches!(actions.as_slice(), [Action::Search(o)] if o.mode == GoMode::Ponder));
        assert!(matches!(
            s.handle(cmd("ponder-hit")).as_slice(),
            [Action::PonderHit]
        ));
        // A second ponder-hit means nothing.
        assert!(s.handle(cmd("ponder-hit")).is_empty());
        assert!(matches!(
            s.handle(cmd("quit")).as_slice(),
            [Action::Stop, Action::Quit]
        ));
    }

    #[test]
    fn bad_positions_and_moves_are_reported() {
        let mut s = session();
        let r = replies(&s.handle(cmd("pos pos=Wbbb")));
        assert!(r[0].starts_with("error message=\"bad position:"), "{r:?}");
        assert_eq!(s.game().moves().len(), 0);
        let r = replies(&s.handle(cmd("pos start moves=\"32-28 32-28 18-22\"")));
        assert!(r[0].starts_with("error message=\"moves:"), "{r:?}");
        assert_eq!(s.game().moves().len(), 1);
        // A position without a legal move: error and an empty done.
        s.handle(cmd(&format!("pos pos=Wb{}", "e".repeat(49))));
        let r = replies(&s.handle(cmd("go think")));
        assert!(r[0].starts_with("error"), "{r:?}");
        assert_eq!(r[1], "done");
        assert!(!s.is_searching());
    }

    #[test]
    fn init_again_rebuilds_only_when_parameters_changed() {
        let mut s = session();
        assert_eq!(replies(&s.handle(cmd("init"))), ["ready"]);
        assert!(s
            .handle(cmd("set-param name=variant value=killer"))
            .is_empty());
        let actions = s.handle(cmd("init"));
        assert!(matches!(actions.as_slice(), [Action::Reinit(p)] if p.variant == "killer"));
        assert!(matches!(
            s.handle(cmd("new-game")).as_slice(),
            [Action::NewGame]
        ));
        let r = replies(&s.handle(cmd("hub")));
        assert!(r[1].contains("value=killer"), "{r:?}");
        assert!(s.handle(cmd("whatever")).is_empty());
        assert!(s.handle(cmd("stop")).is_empty());
    }

    #[test]
    fn an_unset_variant_is_inferred_from_a_position_only_one_variant_fits() {
        // pydraughts' Turkish start (65 characters) while the GUI has set no variant.
        let turkish = format!(
            "W{}{}{}{}{}",
            "e".repeat(8),
            "b".repeat(16),
            "e".repeat(16),
            "w".repeat(16),
            "e".repeat(8)
        );
        let pos = format!("pos pos={turkish} moves=\"20-28\"");
        let mut s = session();
        s.handle(cmd("level depth=2"));
        let actions = s.handle(cmd(&pos));
        let [Action::Switch { params, pending }] = actions.as_slice() else {
            panic!("{actions:?}")
        };
        assert_eq!(params.variant, "turkish");
        assert!(!params.variant_chosen);
        assert_eq!(pending, &[cmd(&pos)]);
        // The new session takes the position.
        let v = Catalogue::builtin().get("turkish").unwrap();
        let mut t: Session<u64> =
            Session::new(identity(), params.clone(), Arc::new(Rules::new(v).unwrap()));
        assert!(t.resume(pending.clone()).is_empty());
        assert_eq!(t.game().moves().len(), 1);
        // 33 characters fit three variants: no guess, an error that says what to do.
        let russian = format!("W{}{}{}", "b".repeat(12), "e".repeat(8), "w".repeat(12));
        let r = replies(&s.handle(cmd(&format!("pos pos={russian}"))));
        assert!(r[0].contains("set-param name=variant"), "{r:?}");
        // Once the GUI has chosen, its choice stands.
        s.handle(cmd("set-param name=variant value=international"));
        let r = replies(&s.handle(cmd(&pos)));
        assert!(r[0].starts_with("error message=\"bad position:"), "{r:?}");
        assert!(!r[0].contains("set-param"), "{r:?}");
        // Choosing the variant the engine has does not rebuild it.
        assert_eq!(replies(&s.handle(cmd("init"))), ["ready"]);
    }

    #[test]
    fn scores_in_men() {
        assert_eq!(score_in_men(SearchScore::CentiMen(150)), 1.5);
        assert_eq!(score_in_men(SearchScore::CentiMen(-7)), -0.07);
        assert_eq!(score_in_men(SearchScore::CentiMen(20_000)), 89.99);
        assert_eq!(score_in_men(SearchScore::WinIn(7)), 99.93);
        assert_eq!(score_in_men(SearchScore::LossIn(4)), -99.96);
    }
}
