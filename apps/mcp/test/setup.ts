import { refuseNonLoopbackConnections } from '@msa/test-kit';

refuseNonLoopbackConnections();
