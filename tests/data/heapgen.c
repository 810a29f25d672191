#include <jemalloc/jemalloc.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
void *keep[100000]; int nkeep;
__attribute__((noinline)) void alloc_small_1000(int n){ for(int i=0;i<n;i++) keep[nkeep++]=malloc(1000); }
__attribute__((noinline)) void deeper2(int n){ alloc_small_1000(n); }
__attribute__((noinline)) void deeper1(int n){ deeper2(n); }
__attribute__((noinline)) void alloc_big_1m(int n){ for(int i=0;i<n;i++) keep[nkeep++]=malloc(1<<20); }
__attribute__((noinline)) void churn(int n){ for(int i=0;i<n;i++){ void*p=malloc(4096); free(p);} }
static void *worker(void *a){ const char *nm="worker one"; mallctl("thread.prof.name",NULL,NULL,&nm,sizeof(nm));
  static void * volatile w[5000]; for(int i=0;i<5000;i++) w[i]=malloc(8192); return a; }
int main(int argc,char**argv){ const char *nm="main thread"; mallctl("thread.prof.name",NULL,NULL,&nm,sizeof(nm));
  alloc_small_1000(20000); deeper1(10000); alloc_big_1m(50); churn(20000);
  pthread_t t; pthread_create(&t,NULL,worker,NULL); pthread_join(t,NULL);
  const char *f=argv[1]; if(mallctl("prof.dump",NULL,NULL,&f,sizeof(f))){fprintf(stderr,"dump failed\n");return 1;}
  return 0; }
