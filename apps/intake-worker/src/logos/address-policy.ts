// The address policy is shared with identity's client metadata fetch.
export { createAddressPolicy, forbiddenRange, parseCidrList, type AddressPolicy, type Cidr } from '@msa/service-kit/public-fetch';
