import type { Connection } from "../connection";
import { Listeners } from "../listeners";
import type { ClientFrame, ServerFrame, Welcome } from "../protocol.gen";
import type { RoomClient } from "../roomClient";
import {
  dismissArrival,
  dismissEnded,
  dismissNotice,
  initialRoomState,
  notice,
  receive,
  withConnection,
  type RoomState,
} from "./roomState";

/**
 * The page's one view of the room: runs a connection (the host's WebSocket or a guest's data
 * channel), folds everything it hears into a `RoomState`, and tells subscribers when that
 * changes. Frame listeners hear each frame after it was folded, so they read the state it made.
 */
export class RoomStore<S extends string = string> implements RoomClient {
  private state: RoomState<S>;
  private readonly changes = new Listeners();
  private readonly frames = new Listeners<ServerFrame>();
  /** For `useSyncExternalStore`: calls `listener` after every change of the state. */
  readonly subscribe = this.changes.add;
  readonly onFrame = this.frames.add;

  constructor(private readonly connection: Connection<S>) {
    this.state = initialRoomState(connection.state);
  }

  readonly getState = (): RoomState<S> => this.state;

  get welcome(): Welcome | null {
    return this.state.welcome;
  }

  send(frame: ClientFrame): boolean {
    return this.connection.send(frame);
  }

  /** Tells the person something this page decided (not the server), as a notice. */
  tell(text: string): void {
    this.set(notice(this.state, text));
  }

  /** The person read notice `id` and put it away. */
  dismissNotice(id: number): void {
    this.set(dismissNotice(this.state, id));
  }

  /** An arrival notice's moment passed. */
  dismissArrival(id: number): void {
    this.set(dismissArrival(this.state, id));
  }

  /** The guest read how its request `id` ended. */
  dismissEnded(id: string): void {
    this.set(dismissEnded(this.state, id));
  }

  /** Starts the connection; the function returned stops it (and this store's listening to it). */
  start(): () => void {
    const offState = this.connection.onState((connection) => this.set(withConnection(this.state, connection)));
    const offFrame = this.connection.onFrame((frame) => this.receive(frame));
    this.connection.start();
    return () => {
      offState();
      offFrame();
      this.connection.stop();
    };
  }

  private receive(frame: ServerFrame): void {
    this.set(receive(this.state, frame));
    for (const ask of this.state.asks) this.connection.send(ask);
    this.frames.emit(frame);
  }

  private set(next: RoomState<S>): void {
    if (next === this.state) return;
    this.state = next;
    this.changes.emit();
  }
}
