// The only public surface of @arvis/lifecycle: state transitions of the records a decision goes
// through. Confirmations first; the dispatcher's release and finalize belong here too.
export {
  ConfirmationNotReservable,
  ConfirmationStore,
  type Approver,
  type ClosedConfirmation,
  type ParkRequest,
  type ReserveRequest,
} from './confirmation-store';
