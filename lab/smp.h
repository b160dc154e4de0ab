/* SPDX-License-Identifier: MIT */
#ifndef LAB_SMP_H
#define LAB_SMP_H

void smp_boot(void);                 /* start every CPU the MADT lists */
void smp_call_all(void (*fn)(void)); /* run @fn on every CPU, wait for all */
void smp_handle_call(void);          /* VEC_CALL handler body */
void cpu_start_timer(void);

#endif
