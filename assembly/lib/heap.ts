/** Where the module's static data (Math's tables, say) ends: the arena places arrays from here on. */
export function heapBase(): usize {
  return __heap_base;
}
