/** What a view receives: the rest of the hash path after its own name (`#/deliveries/dlv_1` gives ['dlv_1']). */
export interface ViewProps {
  params: string[];
}
