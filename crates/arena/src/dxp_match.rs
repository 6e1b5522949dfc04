//! A DXP program listening on an address, as a player of a match (`--engine dxp:HOST:PORT`):
//! each game is proposed to it (GAMEREQ with the game's opening played) on a connection kept
//! from game to game, played move by move ([`DxpPlayer`]) and closed with the GAMEEND exchange.
//!
//! A connection that cannot be made forfeits the game; one that goes out of step (a fault of
//! the peer, an incomplete GAMEEND exchange) or that the peer asked to stop is closed, and the
//! next game connects afresh, so one bad game does not forfeit the rest of the match.

use std::sync::Arc;

use damspel_protocol::dxp::StopCode;
use damspel_rules::{Bits, Color, Game, Move, Rules};

use crate::dxp_player::{DxpConfig, DxpPlayer};
use crate::game::GameRecord;
use crate::player::{Forfeit, Player};

pub struct DxpMatchPlayer<B: Bits> {
    rules: Arc<Rules<B>>,
    addr: String,
    config: DxpConfig,
    /// The connection of the last game, if it can carry the next one.
    peer: Option<DxpPlayer<B>>,
}

impl<B: Bits> DxpMatchPlayer<B> {
    /// A player for the DXP program at `addr` (HOST:PORT); nothing is connected before the
    /// first game.
    pub fn new(rules: Arc<Rules<B>>, addr: String, config: DxpConfig) -> Self {
        DxpMatchPlayer {
            rules,
            addr,
            config,
            peer: None,
        }
    }

    fn connected(&mut self) -> Result<&mut DxpPlayer<B>, Forfeit> {
        if self.peer.is_none() {
            let peer =
                DxpPlayer::connect(self.rules.clone(), self.addr.as_str(), self.config.clone())
                    .map_err(|e| {
                        Forfeit::Crashed(format!("cannot connect to {}: {e}", self.addr))
                    })?;
            self.peer = Some(peer);
        }
        Ok(self.peer.as_mut().expect("connected"))
    }
}

impl<B: Bits> Player<B> for DxpMatchPlayer<B> {
    fn name(&self) -> String {
        match &self.peer {
            Some(peer) => peer.name(),
            None => format!("dxp:{}", self.addr),
        }
    }

    fn start_game(&mut self, color: Color, opening: &[Move<B>]) -> Result<(), Forfeit> {
        let started = self.connected()?.start(color, opening);
        started.map_err(|e| {
            self.peer = None;
            Forfeit::Crashed(format!("the game was not agreed: {e}"))
        })
    }

    fn choose(&mut self, game: &Game<B>) -> Result<Move<B>, Forfeit> {
        self.connected()?.choose(game)
    }

    fn end_game(&mut self, record: &GameRecord<B>) {
        let Some(peer) = self.peer.as_mut() else {
            return;
        };
        let keep = matches!(
            peer.finish(record),
            Ok(end) if end.complete && end.received.is_none_or(|e| e.stop != StopCode::Stop)
        );
        if !keep {
            self.peer = None;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dxp_player::DxpConnection;
    use crate::game::{play_game, Ending};
    use crate::player::RandomPlayer;
    use damspel_protocol::dxp::{AcceptCode, GameAccept, Message};
    use damspel_rules::Catalogue;
    use std::net::TcpListener;
    use std::time::Duration;

    fn rules() -> Arc<Rules<u64>> {
        let variant = Catalogue::builtin().get("international").unwrap();
        Arc::new(Rules::<u64>::new(variant).unwrap())
    }

    fn config() -> DxpConfig {
        DxpConfig {
            move_timeout: Duration::from_secs(10),
            ..DxpConfig::default()
        }
    }

    #[test]
    fn a_game_lost_on_a_fault_is_followed_by_one_on_a_new_connection() {
        let rules = rules();
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let addr = listener.local_addr().unwrap();
        let peer_rules = rules.clone();
        let peer = std::thread::spawn(move || {
            // First connection: the game is accepted, then an illegal move (19-24 is Black's).
            let mut conn = DxpConnection::accept(&listener).unwrap();
            let wait = Some(Duration::from_secs(10));
            assert!(matches!(conn.receive(wait), Ok(Message::GameRequest(_))));
            let accept = GameAccept {
                follower: "faulty".into(),
                code: AcceptCode::Accept,
            };
            conn.send(&Message::GameAccept(accept)).unwrap();
            conn.send_raw(b"M0000192400\0").unwrap();
            while conn.receive(Some(Duration::from_secs(5))).is_ok() {}
            // Second connection: a whole game, random moves on this side.
            let mut follower = DxpPlayer::accept(peer_rules.clone(), &listener, config()).unwrap();
            let initiator = follower.await_request().unwrap();
            let mut random = RandomPlayer::new(7);
            let record = match initiator {
                Color::White => play_game(&peer_rules, &mut follower, &mut random, &[], 200),
                Color::Black => play_game(&peer_rules, &mut random, &mut follower, &[], 200),
            };
            follower.finish(&record).unwrap()
        });
        let mut player = DxpMatchPlayer::new(rules.clone(), addr.to_string(), config());
        let mut random = RandomPlayer::new(1);
        let first = play_game(&rules, &mut player, &mut random, &[], 200);
        assert!(
            matches!(
                first.ending,
                Ending::Forfeit {
                    loser: Color::White,
                    ..
                }
            ),
            "{:?}",
            first.ending
        );
        let second = play_game(&rules, &mut player, &mut random, &[], 200);
        assert!(
            !matches!(second.ending, Ending::Forfeit { .. }),
            "{:?}",
            second.ending
        );
        assert!(!second.moves.is_empty());
        let end = peer.join().unwrap();
        assert!(end.complete, "{end:?}");
    }
}
