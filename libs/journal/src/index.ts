export { appendJournal } from './append-journal';
